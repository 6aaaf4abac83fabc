// What delivery state is made of: the watermark, a reply's intent and its record, and a store's snapshot of them.
import type { SendParams } from "../../api/messages.js";

/** The watermark: every message up to `lastHandledId` was handled, and these above it too. */
export interface DeliveryState {
  /** Every message with an ID up to this one that reached the bot was handled. */
  lastHandledId: number;
  /** Handled messages above `lastHandledId` (others before them are still running). */
  handledAbove: number[];
}

/**
 * Written, durably, before reply number `index` to message `incomingId` is sent. An intent that
 * has no outcome after a crash means "may have been posted": the send is read back (the bot's own
 * messages in that conversation, above `floor`, matching `params`) before it is sent again.
 */
export interface ReplyIntent {
  incomingId: number;
  index: number;
  /** What would be posted (content, type, to, topic): enough to recognise it on read-back. */
  params: SendParams;
  /** Every message the server stores after this intent has a higher ID than this one. */
  floor: number;
  /** Epoch milliseconds when the intent was written. */
  at: number;
  /**
   * The message is edited after it is posted (a streamed answer): its content on the server is
   * no mark of it, so read-back takes the bot's oldest unaccounted message in that conversation
   * above `floor` instead.
   */
  willEdit?: boolean;
}

/** One remembered reply: its intent, and once it went out, the IDs of what was posted. */
export interface ReplyRecord {
  incomingId: number;
  index: number;
  intent?: ReplyIntent;
  /** The posted message IDs; absent while the outcome is unknown. */
  ids?: number[];
}

/** Everything a store holds, as read once at start. */
export interface DeliverySnapshot {
  watermark: DeliveryState | undefined;
  /** Replies of the most recent incoming messages (bounded by the store's capacity), oldest first. */
  replies: ReplyRecord[];
}
