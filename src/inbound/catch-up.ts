// Catch-up: after a lost queue or a restart, fetch the messages sent since the last handled one (bounded).
import type { ApiClient } from "../client/client.js";
import type { RegisterParams } from "../api/events.js";
import type { Narrow } from "../api/common.js";
import type { Message } from "../api/messages.js";

/** How far back catch-up reaches; anything beyond is skipped with a warning. */
export interface CatchUpWindow {
  /**
   * Most messages fetched per catch-up. Default 5000: a bot lagging behind a busy realm (its queue
   * held back while handlers are slow) must not lose what its lost queue still held.
   */
  maxMessages?: number;
  /** Messages older than this are not handled any more. Default 24 hours. */
  maxAgeMs?: number;
}

export const DEFAULT_CATCH_UP: Required<CatchUpWindow> = {
  maxMessages: 5_000,
  maxAgeMs: 24 * 3_600_000,
};

export interface CatchUpResult {
  /** The missed messages, oldest first, with the bot's flags. */
  messages: { message: Message; flags: string[] }[];
  /** True when the window filled up before the newest message was reached. */
  truncated: boolean;
  /** The newest message ID the catch-up read (when truncated, later ones up to the new queue are skipped). */
  reachedId: number;
  /** Messages left out for being older than `maxAgeMs`. */
  tooOld: number;
}

/** The GET /messages narrows that see what the queue sees (a channels:public pass for all_public_streams). */
export function catchUpNarrows(register: RegisterParams): Narrow[] {
  const narrow: Narrow = (register.narrow ?? []).map(([operator, operand]) => ({
    operator,
    operand,
  }));
  if (register.all_public_streams && narrow.length === 0)
    return [narrow, [{ operator: "channels", operand: "public" }]];
  return [narrow];
}

/** The newest message ID visible through any of `narrows` now (0 when there is none): a first start's baseline. */
export async function newestMessageId(api: ApiClient, narrows: readonly Narrow[]): Promise<number> {
  let newest = 0;
  for (const narrow of narrows) {
    const { messages } = await api.messages.list({
      anchor: "newest",
      num_before: 1,
      num_after: 0,
      narrow,
      apply_markdown: false,
    });
    newest = Math.max(newest, messages.at(-1)?.id ?? 0);
  }
  return newest;
}

/**
 * Fetches messages with IDs above `after`, in batches from that anchor (include_anchor false) until
 * the newest, through each narrow; merged, de-duplicated and sorted by ID. With `skipSenderId` (the
 * bot itself), that sender's messages are left out, so the bot's own replies do not fill the window.
 *
 * @example
 * const { messages } = await catchUp(client, { after: 1234, narrows: [[]], now: Date.now() });
 */
export async function catchUp(
  api: ApiClient,
  options: {
    after: number;
    narrows: Narrow[];
    skipSenderId?: number;
    window?: CatchUpWindow;
    now: number;
    signal?: AbortSignal;
  },
): Promise<CatchUpResult> {
  const { maxMessages, maxAgeMs } = { ...DEFAULT_CATCH_UP, ...options.window };
  const batch = Math.max(1, Math.min(1_000, maxMessages));
  const found = new Map<number, { message: Message; flags: string[] }>();
  let truncated = false;
  let tooOld = 0;
  let reachedId = options.after;
  const oldest = (options.now - maxAgeMs) / 1000;
  const skip: Narrow =
    options.skipSenderId === undefined
      ? []
      : [{ operator: "sender", operand: options.skipSenderId, negated: true }];
  for (const narrow of options.narrows.map((n) => [...n, ...skip])) {
    let anchor = options.after;
    let fetched = 0;
    for (;;) {
      const page = await api.messages.list(
        {
          anchor,
          include_anchor: false,
          num_before: 0,
          num_after: Math.min(batch, maxMessages - fetched),
          narrow,
          apply_markdown: false,
        },
        { signal: options.signal },
      );
      for (const { flags, ...message } of page.messages) {
        anchor = Math.max(anchor, message.id);
        reachedId = Math.max(reachedId, message.id);
        fetched++;
        if (message.timestamp < oldest) tooOld++;
        else found.set(message.id, { message, flags });
      }
      if (page.found_newest || page.messages.length === 0) break;
      if (fetched >= maxMessages) {
        truncated = true;
        break;
      }
    }
  }
  return {
    messages: [...found.values()].sort((a, b) => a.message.id - b.message.id),
    truncated,
    tooOld,
    reachedId,
  };
}
