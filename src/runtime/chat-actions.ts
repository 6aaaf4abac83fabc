// The other message actions on `ctx`: react, schedule, markTopicRead, upload, report, flags, gated by capability.
//
// They call client methods of the messaging API (issue 3): messages.addReaction, messages.report,
// messages.updateFlagsForNarrow, scheduledMessages.create, topics.markAsRead, uploads.upload.
// Until those are merged, `MessagingMethods` states what is expected of them and `method()` fails
// clearly when one is missing; after the merge, replace `method()` by the typed client calls.
import type { Narrow } from "../api/common.js";
import { requireCapability } from "./capabilities.js";
import type { ActionEnv } from "./actions.js";
import type { Conversation } from "./conversation.js";
import { parseTime } from "./time.js";

/** The report reasons the server knows. */
export type ReportType = "spam" | "harassment" | "inappropriate" | "norms" | "other";

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

type Call = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** A messaging-API client method by namespace and name; a clear error when this client lacks it. */
function method(env: ActionEnv, namespace: string, name: string): Call {
  const ns = (env.api as unknown as Record<string, Record<string, unknown> | undefined>)[namespace];
  const fn = ns?.[name];
  if (typeof fn !== "function")
    throw new TypeError(
      `this client has no ${namespace}.${name}(); it comes with the messaging API`,
    );
  return fn as Call;
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
  upload(file: Blob | Uint8Array | string, name: string): Promise<Upload>;
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
      await method(
        env,
        "messages",
        "addReaction",
      )({
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
      const result = await method(
        env,
        "scheduledMessages",
        "create",
      )({
        type: Array.isArray(where.to) ? "direct" : "stream",
        to: where.to,
        ...(where.topic !== undefined && { topic: where.topic }),
        content,
        scheduled_delivery_timestamp: scheduleSeconds(at, {
          now: env.now(),
          zone: env.timeZone,
        }),
      });
      return { scheduledMessageId: result.scheduled_message_id as number };
    },
    async markTopicRead() {
      requireCapability("markTopicRead", level());
      if (conversation.type !== "channel")
        throw new TypeError("markTopicRead: this message is not in a channel topic");
      await method(
        env,
        "topics",
        "markAsRead",
      )({
        stream_id: conversation.streamId,
        topic_name: conversation.topic,
      });
    },
    async upload(file, name) {
      requireCapability("upload", level());
      const blob =
        typeof file === "string"
          ? new Blob([await (await import("node:fs/promises")).readFile(file)])
          : file instanceof Uint8Array
            ? new Blob([file])
            : file;
      const result = await method(env, "uploads", "upload")({ file: blob, filename: name });
      const url = (result.url ?? result.uri) as string;
      const filename = (result.filename as string | undefined) ?? name;
      return { url, filename, markdown: `[${filename.replace(/[[\]]/g, "")}](${url})` };
    },
    async report(type, description) {
      requireCapability("report", level());
      if (type === "other" && !description?.trim())
        throw new TypeError('report: a description is required with type "other"');
      await method(
        env,
        "messages",
        "report",
      )({
        message_id: message.id,
        report_type: type,
        ...(description !== undefined && { description }),
      });
    },
    async flags(request) {
      requireCapability("flags", level());
      const result = await method(
        env,
        "messages",
        "updateFlagsForNarrow",
      )({
        anchor: String(request.anchor ?? "newest"),
        num_before: request.numBefore ?? 1000,
        num_after: request.numAfter ?? 0,
        narrow: request.narrow,
        op: request.op,
        flag: request.flag,
      });
      return result as unknown as FlagsResult;
    },
  };
}
