// The other message actions on `ctx`: react, unreact, schedule, markTopicRead, upload, report, flags, gated by capability.
import { inline } from "../markdown/escape.js";
import type { Narrow } from "../api/common.js";
import type { ReportType } from "../api/messages.js";
import type { UploadSource } from "../api/uploads.js";
import { requireCapability } from "./capabilities.js";
import type { ActionEnv } from "./actions.js";
import type { Conversation } from "../model/conversation.js";
import { parseTime } from "./time.js";

export type { ReportType } from "../api/messages.js";

/** What `ctx.flags(...)` changed (the server's counts). */
export interface FlagsResult {
  processed_count: number;
  updated_count: number;
  first_processed_id: number | null;
  last_processed_id: number | null;
  found_oldest: boolean;
  found_newest: boolean;
}

export interface FlagsRequest {
  narrow: Narrow;
  op: "add" | "remove";
  flag: string;
  /** Default `newest` with 1000 messages before it. */
  anchor?: number | "newest" | "oldest" | "first_unread";
  numBefore?: number;
  numAfter?: number;
}

/** Where a scheduled message goes: a channel ID and topic, or user IDs. */
export type ScheduleTarget = { to: number; topic: string } | { to: number[]; topic?: undefined };

/** An uploaded file: its URL and a ready Markdown link. */
export interface Upload {
  url: string;
  filename: string;
  markdown: string;
}

/** A message given by ID, or the message itself. */
export type MessageRef = number | { id: number };

const idOf = (message: MessageRef): number => (typeof message === "number" ? message : message.id);
const level = (env: ActionEnv): number | undefined => env.server().featureLevel;
/** An emoji name as people type it: `thumbs_up` or `:thumbs_up:`. */
const emojiName = (emoji: string): string => emoji.replace(/^:|:$/g, "");

/** Seconds since the epoch for a schedule time; throws naming the text that is not a time. */
export function scheduleSeconds(
  at: Date | number | string,
  options: { now: number; timeZone: string },
): number {
  if (at instanceof Date) return Math.floor(at.getTime() / 1000);
  if (typeof at === "number") return Math.floor(at);
  const parsed = parseTime(at, options);
  if (!parsed)
    throw new TypeError(`schedule: "${at}" is not a time; try "in 10 minutes" or "tomorrow 9:00"`);
  return Math.floor(parsed.getTime() / 1000);
}

/** Adds the bot's emoji reaction to a message. */
export async function react(env: ActionEnv, message: MessageRef, emoji: string): Promise<void> {
  requireCapability("react", level(env));
  await env.api.messages.addReaction({ message_id: idOf(message), emoji_name: emojiName(emoji) });
}

/** Removes the bot's emoji reaction from a message. */
export async function unreact(env: ActionEnv, message: MessageRef, emoji: string): Promise<void> {
  requireCapability("react", level(env));
  await env.api.messages.removeReaction({
    message_id: idOf(message),
    emoji_name: emojiName(emoji),
  });
}

/** Schedules `content` to `conversation`, or to `target`, for `at`; returns its ID. */
export async function schedule(
  env: ActionEnv & { now(): number; timeZone: string },
  conversation: Conversation,
  content: string,
  at: Date | number | string,
  target?: ScheduleTarget,
): Promise<{ scheduledMessageId: number }> {
  requireCapability("schedule", level(env));
  const where: ScheduleTarget =
    target ??
    (conversation.type === "channel"
      ? { to: conversation.streamId, topic: conversation.topic }
      : { to: conversation.userIds.filter((id) => id !== env.me.userId) });
  const result = await env.api.scheduledMessages.create({
    type: Array.isArray(where.to) ? "direct" : "stream",
    to: where.to,
    ...(where.topic !== undefined && { topic: where.topic }),
    content,
    scheduled_delivery_timestamp: scheduleSeconds(at, { now: env.now(), timeZone: env.timeZone }),
  });
  return { scheduledMessageId: result.scheduled_message_id };
}

/** Marks a channel topic as read for the bot. */
export async function markTopicRead(env: ActionEnv, conversation: Conversation): Promise<void> {
  requireCapability("markTopicRead", level(env));
  if (conversation.type !== "channel")
    throw new TypeError("markTopicRead: this message is not in a channel topic");
  await env.api.topics.markAsRead({
    stream_id: conversation.streamId,
    topic_name: conversation.topic,
  });
}

/** Uploads a file; returns its URL and a Markdown link `[name](url)`. */
export async function upload(env: ActionEnv, file: UploadSource, name: string): Promise<Upload> {
  requireCapability("upload", level(env));
  const result = await env.api.uploads.upload({ file, filename: name });
  const filename = result.filename ?? name;
  const url = result.url;
  // The name is the uploader's (escaped, one line, no brackets); the URL the server's, with
  // what could close the link encoded.
  const target = url.replace(
    /[()\s<>]/g,
    (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  return { url, filename, markdown: `[${inline(filename.replace(/[[\]]/g, ""))}](${target})` };
}

/** Reports a message to the moderators. */
export async function report(
  env: ActionEnv,
  message: MessageRef,
  type: ReportType,
  description?: string,
): Promise<void> {
  requireCapability("report", level(env));
  if (type === "other" && !description?.trim())
    throw new TypeError('report: a description is required with type "other"');
  await env.api.messages.report({
    message_id: idOf(message),
    report_type: type,
    ...(description !== undefined && { description }),
  });
}

/** Adds or removes a personal flag over the messages of a narrow. */
export async function flags(env: ActionEnv, request: FlagsRequest): Promise<FlagsResult> {
  requireCapability("flags", level(env));
  return env.api.messages.updateFlagsForNarrow({
    anchor: request.anchor ?? "newest",
    num_before: request.numBefore ?? 1000,
    num_after: request.numAfter ?? 0,
    narrow: request.narrow,
    op: request.op,
    flag: request.flag,
  });
}
