// Message actions on `ctx`: reply and send, with long content split on line boundaries.
import type { ApiClient } from "../../client/client.js";
import type { SendParams } from "../../api/messages.js";
import { supports } from "./capabilities.js";
import type { Conversation } from "../dispatch/conversation.js";
import type { ChatUser } from "./directory.js";
import type { BotIdentity } from "../dispatch/gate.js";
import type { ChannelRef, TopicRef } from "../commands/types.js";

/** What the server told the bot at registration that actions depend on. */
export interface ServerFacts {
  /** `zulip_feature_level`; undefined before registration (assumed current). */
  featureLevel: number | undefined;
  /** `max_message_length`; default 10000. */
  maxMessageLength: number;
}

export interface ActionEnv {
  api: ApiClient;
  me: BotIdentity;
  server(): ServerFacts;
  /** How messages go out; the runtime's resends after failures without doubling. Default: `api.messages.send`. */
  sendMessage?: (params: SendParams) => Promise<{ id: number }>;
}

/** A message the bot sent; long content becomes several messages, all listed in `ids`. */
export interface SentMessage {
  /** The ID of the first (often only) message. */
  id: number;
  ids: number[];
}

/** A user given by ID, email, or as a resolved user. */
export type UserTarget = number | string | Pick<ChatUser, "userId">;

/**
 * Where `send` delivers: a channel (name, ID or a `#**channel**` argument) with a topic, a topic
 * argument (`#**channel>topic**`), or users (one, or a list for a group DM).
 */
export type SendTarget =
  | { to: string | number | ChannelRef; topic: string; content: string }
  | { to: TopicRef; topic?: undefined; content: string }
  | { to: Pick<ChatUser, "userId"> | UserTarget[]; topic?: undefined; content: string };

export const DEFAULT_MAX_MESSAGE_LENGTH = 10_000;

const length = (s: string): number => [...s].length;

/**
 * Splits `content` into messages of at most `max` characters, breaking between lines; only a
 * single line longer than `max` is cut, preferably at a space.
 *
 * @example
 * splitMessage("a\nb\nc", 3); // ["a\nb", "c"]
 */
export function splitMessage(content: string, max: number): string[] {
  if (length(content) <= max) return [content];
  const parts: string[] = [];
  let current = "";
  const push = () => {
    if (current.trim() !== "") parts.push(current);
    current = "";
  };
  for (const line of content.split("\n")) {
    const candidate = current === "" ? line : `${current}\n${line}`;
    if (length(candidate) <= max) {
      current = candidate;
      continue;
    }
    push();
    let rest = [...line];
    while (rest.length > max) {
      const window = rest.slice(0, max).join("");
      const space = window.lastIndexOf(" ");
      const cut = space > max / 2 ? [...window.slice(0, space)].length + 1 : max;
      parts.push(rest.slice(0, cut).join("").trimEnd());
      rest = rest.slice(cut);
    }
    current = rest.join("");
  }
  push();
  return parts;
}

const userIdOrEmail = (u: UserTarget): number | string => (typeof u === "object" ? u.userId : u);

/** The POST /messages parameters for a target, without content. */
export function sendParams(
  target: Omit<SendTarget, "content">,
  featureLevel: number | undefined,
): Omit<SendParams, "content"> {
  const direct = supports("directType", featureLevel) ? "direct" : "private";
  const { to, topic } = target;
  if (Array.isArray(to) || (typeof to === "object" && "userId" in to)) {
    const list = (Array.isArray(to) ? to : [to]).map(userIdOrEmail);
    if (list.length === 0) throw new TypeError("send: `to` lists no users");
    const ids = list.filter((u): u is number => typeof u === "number");
    return { type: direct, to: ids.length === list.length ? ids : list.map(String) };
  }
  if (typeof to === "object" && "topic" in to) {
    return { type: "channel", to: to.streamId, topic: topic ?? to.topic };
  }
  if (topic === undefined) throw new TypeError("send: a channel target needs a `topic`");
  return { type: "channel", to: typeof to === "object" ? to.streamId : to, topic };
}

/** Sends `content` as one or more messages; later parts wait for earlier ones, keeping order. */
async function post(
  env: ActionEnv,
  params: Omit<SendParams, "content">,
  content: string,
): Promise<SentMessage> {
  const { maxMessageLength } = env.server();
  const ids: number[] = [];
  for (const part of splitMessage(content, maxMessageLength)) {
    const message = { ...params, content: part } as SendParams;
    const sent = await (env.sendMessage
      ? env.sendMessage(message)
      : env.api.messages.send(message));
    ids.push(sent.id);
  }
  return { id: ids[0]!, ids };
}

/** Recipients of a reply in a direct-message group: everyone but the bot. */
function replyRecipients(
  conversation: Extract<Conversation, { type: "direct" }>,
  me: BotIdentity,
): number[] {
  const others = conversation.userIds.filter((id) => id !== me.userId);
  return others.length > 0 ? others : [me.userId];
}

export interface MessageActions {
  /** Sends `content` to the same topic, or the same direct-message group; long content is split. */
  reply(content: string): Promise<SentMessage>;
  /**
   * Sends to any channel topic or users.
   *
   * @example
   * await ctx.send({ to: "general", topic: "deploys", content: "v2 is out" });
   * await ctx.send({ to: [ctx.sender.userId], content: "psst" });
   */
  send(target: SendTarget): Promise<SentMessage>;
}

/** reply and send for a message in `conversation`. */
export function messageActions(env: ActionEnv, conversation: Conversation): MessageActions {
  return {
    reply(content) {
      const level = env.server().featureLevel;
      return conversation.type === "channel"
        ? post(
            env,
            { type: "channel", to: conversation.streamId, topic: conversation.topic },
            content,
          )
        : post(env, sendParams({ to: replyRecipients(conversation, env.me) }, level), content);
    },
    send(target) {
      return post(env, sendParams(target, env.server().featureLevel), target.content);
    },
  };
}
