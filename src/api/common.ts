// Small wire types shared by several endpoints: roles, the topic rule's constants, narrows.
import { z } from "zod";
import { optBool, str } from "./leaves.js";

export const ROLES = {
  owner: 100,
  administrator: 200,
  moderator: 300,
  member: 400,
  guest: 600,
} as const;
export type RoleName = keyof typeof ROLES;
export const role = z.union([
  z.literal(100),
  z.literal(200),
  z.literal(300),
  z.literal(400),
  z.literal(600),
]);
export type Role = z.infer<typeof role>;

/** The topic value that means "empty topic", besides the realm's display name for it. */
export const NO_TOPIC = "(no topic)";

/** A message recipient type; `direct`/`private` are DMs, `channel`/`stream` are channel messages. */
export const messageType = z.enum(["direct", "channel", "stream", "private"]);
export type MessageType = z.infer<typeof messageType>;
export const isDirectType = (t: MessageType): boolean => t === "direct" || t === "private";

/** One narrow term, in object form or as an `[operator, operand]` pair. */
export const narrowTerm = z.union([
  z.looseObject({
    operator: str,
    operand: z.union([str, z.number(), z.array(z.number())]),
    negated: optBool,
  }),
  z.tuple([str, z.union([str, z.number(), z.array(z.number())])]),
]);
export const narrow = z.array(narrowTerm);
export type NarrowTerm = z.infer<typeof narrowTerm>;
export type Narrow = z.infer<typeof narrow>;

/** `service_extra_emoji` is the spec's name, `zulip_extra_emoji` the real server's, for the same built-in emoji. */
export const emojiReactionType = z.enum([
  "unicode_emoji",
  "realm_emoji",
  "service_extra_emoji",
  "zulip_extra_emoji",
]);
export type EmojiReactionType = z.infer<typeof emojiReactionType>;
