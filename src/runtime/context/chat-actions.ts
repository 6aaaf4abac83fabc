// The other message actions on `ctx`: react, schedule, markTopicRead, upload, report, flags, gated by capability.
import type { Narrow } from "../../api/common.js";
import type { ReportType } from "../../api/messages.js";
import type { UploadSource } from "../../api/uploads.js";
import { requireCapability } from "./capabilities.js";
import type { ActionEnv } from "./actions.js";
import type { Conversation } from "../dispatch/conversation.js";
import { parseTime } from "./time.js";

export type { ReportType } from "../../api/messages.js";

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

export interface ChatActions {
  /** Adds an emoji reaction (by name, e.g. `thumbs_up`) to the message being handled. */
  react(emoji: string): Promise<void>;
  /**
   * Schedules a message to this conversation, or to `target`, for `at`: a Date, UNIX seconds, or
   * a human time (`in 10 minutes`, `tomorrow 9:00`) in the bot's time zone. Returns its ID.
   * The server takes IDs only: a channel ID with a topic, or user IDs.
   */
  schedule(
    content: string,
    at: Date | number | string,
    target?: ScheduleTarget,
  ): Promise<{ scheduledMessageId: number }>;
  /** Marks this channel topic as read for the bot. */
  markTopicRead(): Promise<void>;
  /** Uploads a file and returns its URL and a Markdown link `[name](url)`. */
  upload(file: UploadSource, name: string): Promise<Upload>;
  /** Reports the message being handled to the moderators. */
  report(type: ReportType, description?: string): Promise<void>;
  /** Adds or removes a personal flag (`read`, `starred`, ...) over the messages of a narrow. */
  flags(request: FlagsRequest): Promise<FlagsResult>;
}

/** Seconds since the epoch for a schedule time; throws naming the text that is not a time. */
export function scheduleSeconds(
  at: Date | number | string,
  options: { now: number; zone: string },
): number {
  if (at instanceof Date) return Math.floor(at.getTime() / 1000);
  if (typeof at === "number") return Math.floor(at);
  const parsed = parseTime(at, options);
  if (!parsed)
    throw new TypeError(`schedule: "${at}" is not a time; try "in 10 minutes" or "tomorrow 9:00"`);
  return Math.floor(parsed.getTime() / 1000);
}

/** The chat actions for one message. */
export function chatActions(
  env: ActionEnv & { now(): number; timeZone: string },
  message: { id: number },
  conversation: Conversation,
): ChatActions {
  const level = () => env.server().featureLevel;
  return {
    async react(emoji) {
      requireCapability("react", level());
      await env.api.messages.addReaction({
        message_id: message.id,
        emoji_name: emoji.replace(/^:|:$/g, ""),
      });
    },
    async schedule(content, at, target) {
      requireCapability("schedule", level());
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
        scheduled_delivery_timestamp: scheduleSeconds(at, {
          now: env.now(),
          zone: env.timeZone,
        }),
      });
      return { scheduledMessageId: result.scheduled_message_id };
    },
    async markTopicRead() {
      requireCapability("markTopicRead", level());
      if (conversation.type !== "channel")
        throw new TypeError("markTopicRead: this message is not in a channel topic");
      await env.api.topics.markAsRead({
        stream_id: conversation.streamId,
        topic_name: conversation.topic,
      });
    },
    async upload(file, name) {
      requireCapability("upload", level());
      const result = await env.api.uploads.upload({ file, filename: name });
      const filename = result.filename ?? name;
      const url = result.url;
      return { url, filename, markdown: `[${filename.replace(/[[\]]/g, "")}](${url})` };
    },
    async report(type, description) {
      requireCapability("report", level());
      if (type === "other" && !description?.trim())
        throw new TypeError('report: a description is required with type "other"');
      await env.api.messages.report({
        message_id: message.id,
        report_type: type,
        ...(description !== undefined && { description }),
      });
    },
    async flags(request) {
      requireCapability("flags", level());
      return env.api.messages.updateFlagsForNarrow({
        anchor: request.anchor ?? "newest",
        num_before: request.numBefore ?? 1000,
        num_after: request.numAfter ?? 0,
        narrow: request.narrow,
        op: request.op,
        flag: request.flag,
      });
    },
  };
}
