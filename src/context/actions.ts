// Message actions on `ctx`: reply, send and edit, with long content split on line boundaries.
import type { ApiClient } from "../client/client.js";
import type { SendParams } from "../api/messages.js";
import { supports } from "./capabilities.js";
import type { Conversation } from "../model/conversation.js";
import type { ChatUser } from "./directory.js";
import type { BotAccount, BotIdentity } from "../model/account.js";
import type { ChannelRef, TopicRef } from "../model/command.js";
import { graphemeBoundary } from "../markdown/safe-cut.js";

/** What the server told the bot at registration that actions depend on. */
export interface ServerFacts {
  /** `zulip_feature_level`; undefined before registration (assumed current). */
  featureLevel: number | undefined;
  /** `max_message_length`; default 10000. */
  maxMessageLength: number;
}

export interface ActionEnv {
  api: ApiClient;
  me: BotAccount;
  server(): ServerFacts;
  /** How messages go out; the runtime's resends after failures without doubling. Default: `api.messages.send`. */
  sendMessage?: (params: SendParams) => Promise<{ id: number }>;
}

/** The IDs of what one reply or send posted: long content becomes several messages. */
export interface SentIds {
  /** The ID of the first (often only) message. */
  id: number;
  ids: number[];
  /**
   * Sent before (this message was handled again after a restart or a lost queue): the recorded
   * message is returned and nothing was posted now. Its content is what was posted then.
   */
  repeated?: boolean;
}

/** What `edit` may change: the content, the topic (and how far a topic change reaches). */
export interface EditChanges {
  content?: string;
  topic?: string;
  /** Which messages a topic change moves: this one (default), it and later ones, or all. */
  propagate?: "change_one" | "change_later" | "change_all";
}

/** A message the bot sent; long content becomes several messages, all listed in `ids`. */
export interface SentMessage extends SentIds {
  /** Edits the (first) message sent, under the server's edit rules. */
  edit(changes: EditChanges): Promise<void>;
}

/**
 * A widget on a message: the server's `widget_content` (e.g. a poll), sent as JSON.
 * The server takes zforms this way; polls and todo lists come from content (`pollContent`).
 */
export interface Widget {
  widget_type: string;
  extra_data: Record<string, unknown>;
}

/** A user given by ID, email, or as a resolved user. */
export type UserTarget = number | string | Pick<ChatUser, "userId">;

/**
 * Where `send` delivers: a channel (name, ID or a `#**channel**` argument) with a topic, a topic
 * argument (`#**channel>topic**`), users (one, or a list for a group DM), or one email address
 * (a direct message to that user).
 */
export type SendTarget = (
  | { to: string | number | ChannelRef; topic: string }
  | { to: TopicRef; topic?: undefined }
  | { to: Pick<ChatUser, "userId"> | UserTarget[] | string; topic?: undefined }
) & { content: string; widget?: Widget };

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
  // Fast path for nearly every message: a string has at most as many characters as UTF-16 units,
  // so one no longer than `max` in units fits without counting its characters (an array each).
  if (content.length <= max || length(content) <= max) return [content];
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
    let rest = line;
    while (length(rest) > max) {
      const window = [...rest].slice(0, max).join("");
      const space = window.lastIndexOf(" ");
      // A hard cut falls between grapheme clusters (never inside an emoji or a surrogate pair).
      const cut = space > window.length / 2 ? space + 1 : graphemeBoundary(rest, window.length);
      parts.push(rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut);
    }
    current = rest;
  }
  push();
  return parts;
}

/** Whether `to` reads as an email address (a channel name never has an `@` followed by a dot). */
const isEmail = (to: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(to);

const userIdOrEmail = (u: UserTarget): number | string => (typeof u === "object" ? u.userId : u);

/** The POST /messages parameters for a target, without content. */
export function sendParams(
  target: Omit<SendTarget, "content">,
  featureLevel: number | undefined,
): Omit<SendParams, "content"> {
  const direct = supports("directType", featureLevel) ? "direct" : "private";
  const { to, topic } = target;
  // A channel is never looked up by an email address: `to: "someone@example.com"` is a DM.
  if (typeof to === "string" && isEmail(to)) {
    if (topic !== undefined)
      throw new TypeError(
        `send: "${to}" is an email address, so this is a direct message, which has no topic; use { to: "${to}", content } (or { to: [userId] })`,
      );
    return { type: direct, to: [to] };
  }
  if (Array.isArray(to) || (typeof to === "object" && "userId" in to)) {
    const list = (Array.isArray(to) ? to : [to]).map(userIdOrEmail);
    if (list.length === 0) throw new TypeError("send: `to` lists no users");
    const ids = list.filter((u): u is number => typeof u === "number");
    return { type: direct, to: ids.length === list.length ? ids : list.map(String) };
  }
  if (typeof to === "object" && "topic" in to) {
    return { type: "channel", to: to.streamId, topic: topic ?? to.topic };
  }
  if (topic === undefined)
    throw new TypeError(
      `send: the channel target ${JSON.stringify(to)} needs a \`topic\`; for a direct message give \`to\` an email address or a list of user IDs`,
    );
  return { type: "channel", to: typeof to === "object" ? to.streamId : to, topic };
}

/**
 * `{ ...params, content }`, without the spread: in Node 20's V8 an object spread followed by
 * another property leaves the fast clone path for the runtime (about 0.9 µs, some twenty times a
 * plain copy), and every reply made three such copies. The same keys in the same order (`content`
 * last, or where `params` already has it).
 *
 * @example
 * withContent({ type: "channel", to: 5, topic: "t" }, "hi"); // { type, to, topic, content: "hi" }
 */
export function withContent<P extends object>(
  params: P,
  content: string,
): Omit<P, "content"> & { content: string } {
  const message = Object.assign({}, params) as Omit<P, "content"> & { content: string };
  message.content = content;
  return message;
}

/**
 * Sends `content` as one or more messages; later parts wait for earlier ones, keeping order.
 * A widget goes with the first part.
 */
export function postTo(
  env: ActionEnv,
  params: Omit<SendParams, "content">,
  content: string,
  widget?: Widget,
): Promise<SentIds> {
  try {
    const { maxMessageLength } = env.server();
    // Content of one part as it is (nearly every message; see `splitMessage`'s fast path) is sent
    // without the list of parts and the loop's async steps.
    if (content.length > maxMessageLength) return postParts(env, params, content, widget);
    return sendPart(env, params, content, widget).then(sentOne);
  } catch (error) {
    return Promise.reject(error);
  }
}

const sentOne = (sent: { id: number }): SentIds => ({ id: sent.id, ids: [sent.id] });

/** Posts one message of `params` with `content` (and the widget, if any). */
function sendPart(
  env: ActionEnv,
  params: Omit<SendParams, "content">,
  content: string,
  widget: Widget | undefined,
): Promise<{ id: number }> {
  const message = withContent(params, content) as SendParams;
  if (widget !== undefined) message.widget_content = JSON.stringify(widget);
  return env.sendMessage ? env.sendMessage(message) : env.api.messages.send(message);
}

/** `postTo` for content that may take several messages. */
async function postParts(
  env: ActionEnv,
  params: Omit<SendParams, "content">,
  content: string,
  widget: Widget | undefined,
): Promise<SentIds> {
  const ids: number[] = [];
  for (const part of splitMessage(content, env.server().maxMessageLength)) {
    const sent = await sendPart(env, params, part, ids.length === 0 ? widget : undefined);
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

/** The POST /messages parameters of a reply in `conversation`. */
export function replyParams(
  conversation: Conversation,
  me: BotIdentity,
  featureLevel: number | undefined,
): Omit<SendParams, "content"> {
  return conversation.type === "channel"
    ? { type: "channel", to: conversation.streamId, topic: conversation.topic }
    : sendParams({ to: replyRecipients(conversation, me) }, featureLevel);
}

/** PATCH /messages/{id}: edits content and/or topic; the server refuses what its rules forbid. */
export async function editMessage(
  env: ActionEnv,
  messageId: number,
  changes: EditChanges,
): Promise<void> {
  if (changes.content === undefined && changes.topic === undefined)
    throw new TypeError("edit: give `content`, `topic` or both");
  await env.api.messages.update({
    message_id: messageId,
    ...(changes.content !== undefined && { content: changes.content }),
    ...(changes.topic !== undefined && { topic: changes.topic }),
    ...(changes.propagate !== undefined && { propagate_mode: changes.propagate }),
  });
}
