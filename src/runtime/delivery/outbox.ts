// The outbox: each reply goes out once per incoming message (a persisted ledger), and a failed send is resent without doubling.
import type { ApiClient } from "../../client/client.js";
import { ApiError, NetworkError } from "../../client/errors.js";
import { backoffDelay, sleep, type BackoffOptions } from "../../client/backoff.js";
import type { Narrow } from "../../api/common.js";
import type { Message, SendParams } from "../../api/messages.js";
import type { Logger } from "../../log/logger.js";
import { LatestWriter } from "../../storage/latest-writer.js";
import type { KeyValueStore } from "../../storage/store.js";
import { RecentIds } from "./recent.js";

const KEY = "replies";

/**
 * Remembers, for the last `capacity` incoming messages that got answers, which messages the bot
 * sent as the n-th reply to each; so handling a message again after recovery sends nothing twice.
 *
 * @example
 * const ledger = new ReplyLedger(storage.namespace("topicbot:runtime"));
 * await ledger.load();
 * ledger.sent(message.id, 0) ?? (await ledger.record(message.id, 0, [(await send()).id]));
 */
export class ReplyLedger {
  readonly #store: KeyValueStore;
  readonly #capacity: number;
  readonly #entries = new Map<number, number[][]>();
  readonly #writer: LatestWriter;

  constructor(store: KeyValueStore, capacity = 500) {
    if (capacity < 1) throw new RangeError("reply memory must be at least 1");
    this.#store = store;
    this.#capacity = capacity;
    this.#writer = new LatestWriter(() =>
      this.#store.set(
        KEY,
        [...this.#entries].map(([id, r]) => [id, r.map((ids) => ids ?? [])]),
      ),
    );
  }

  async load(): Promise<void> {
    const saved = await this.#store.get<[number, number[][]][]>(KEY);
    for (const [incoming, replies] of saved ?? []) this.#entries.set(incoming, replies);
  }

  /** The message IDs sent as reply number `index` to message `incomingId`, if it went out. */
  sent(incomingId: number, index: number): number[] | undefined {
    return this.#entries.get(incomingId)?.[index];
  }

  /** Records reply number `index` to `incomingId` and persists the (bounded) ledger (rejects if that write fails). */
  record(incomingId: number, index: number, ids: number[]): Promise<void> {
    const replies = this.#entries.get(incomingId) ?? [];
    replies[index] = ids;
    this.#entries.delete(incomingId);
    this.#entries.set(incomingId, replies);
    while (this.#entries.size > this.#capacity) {
      this.#entries.delete(this.#entries.keys().next().value as number);
    }
    return this.#writer.schedule();
  }

  get size(): number {
    return this.#entries.size;
  }
}

export interface ReliableSendOptions {
  api: ApiClient;
  /** The bot's user ID (to find its own messages). */
  me: () => number;
  /** A message ID every message sent from now on is above (the highest the bot has seen). */
  floor: () => number;
  /** Attempts per message, the first included. Default 6. */
  attempts?: number;
  backoff?: BackoffOptions;
  log: Logger;
}

/** Failures after which the message may or may not have been posted; resending needs a check first. */
function uncertain(error: unknown): boolean {
  return error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
}

function retryable(error: unknown): boolean {
  return (
    uncertain(error) ||
    (error instanceof ApiError && (error.status === 429 || error.code === "RATE_LIMIT_HIT"))
  );
}

/** Whether `m` is the message `params` would have posted. */
function matches(m: Message, params: SendParams): boolean {
  if (m.content.trim() !== params.content.trim()) return false;
  const to = params.to;
  if (params.type === "channel" || params.type === "stream") {
    const topic = (params.topic ?? "").trim().toLowerCase();
    const channel =
      typeof to === "number"
        ? m.stream_id === to
        : typeof to === "string" &&
          typeof m.display_recipient === "string" &&
          m.display_recipient.toLowerCase() === to.toLowerCase();
    return m.type === "stream" && channel && m.subject.trim().toLowerCase() === topic;
  }
  if (m.type !== "private" || !Array.isArray(m.display_recipient) || !Array.isArray(to))
    return false;
  const present = new Set(m.display_recipient.flatMap((r) => [r.id, r.email.toLowerCase()]));
  return to.every((u) => present.has(typeof u === "string" ? u.toLowerCase() : u));
}

/**
 * The bot's own messages in the conversation `params` posts to, so a lost reply is among the
 * newest however busy the bot is elsewhere. Legacy operator names, which every server accepts.
 */
function ownMessagesThere(params: SendParams, me: number): Narrow {
  const sender = { operator: "sender", operand: me };
  if (params.type === "channel" || params.type === "stream") {
    const to = params.to;
    if (typeof to === "number" || typeof to === "string")
      return [
        sender,
        { operator: "stream", operand: to },
        { operator: "topic", operand: params.topic ?? "" },
      ];
    return [sender];
  }
  return [sender, { operator: "is", operand: "private" }];
}

/**
 * How many of the bot's newest messages in the conversation a read-back looks at. Its handler is
 * the only one answering in that conversation now (one lane each), so a lost reply is among the last.
 */
const READ_BACK = 50;

/**
 * Sends a message so that it is neither dropped nor doubled: rate limits are waited out, and after
 * a 5xx or a lost connection the bot's messages in that conversation are read back before sending
 * again. When the read-back itself fails, it is tried again rather than risking a second copy.
 *
 * @example
 * const send = reliableSend({ api, me: () => bot.me.userId, floor: () => ledger.highestSeen, log });
 * await send({ type: "channel", to: "general", topic: "hi", content: "hello" });
 */
export function reliableSend(options: ReliableSendOptions): (params: SendParams) => Promise<{
  id: number;
}> {
  const attempts = options.attempts ?? 6;
  const backoff = { baseMs: 250, capMs: 10_000, ...options.backoff };
  const confirmed = new RecentIds(1_000);

  async function landed(params: SendParams, floor: number): Promise<number | undefined> {
    const { messages } = await options.api.messages.list({
      anchor: "newest",
      num_before: READ_BACK,
      num_after: 0,
      narrow: ownMessagesThere(params, options.me()),
      apply_markdown: false,
    });
    return messages.find((m) => m.id > floor && !confirmed.has(m.id) && matches(m, params))?.id;
  }

  const delay = (error: unknown, attempt: number): number =>
    error instanceof ApiError && error.retryAfter !== undefined
      ? Math.ceil(error.retryAfter * 1000)
      : backoffDelay(attempt, backoff);

  return async (params) => {
    const floor = options.floor();
    let lastError: unknown;
    /** An earlier attempt may have posted the message: read back before sending again. */
    let unsure = false;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(delay(lastError, attempt - 1));
      if (unsure) {
        try {
          const id = await landed(params, floor);
          if (id !== undefined) {
            options.log.info(
              { messageId: id },
              "a send that seemed to fail had arrived; not resending",
            );
            confirmed.add(id);
            return { id };
          }
          unsure = false;
        } catch (error) {
          lastError = error;
          options.log.warn(
            { err: error },
            "could not check whether a send arrived; checking again",
          );
          continue;
        }
      }
      try {
        const sent = await options.api.messages.send(params);
        confirmed.add(sent.id);
        return sent;
      } catch (error) {
        if (!retryable(error) || attempt + 1 >= attempts) throw error;
        lastError = error;
        unsure = uncertain(error);
        options.log.warn({ err: error }, "sending failed; trying again");
      }
    }
    throw lastError;
  };
}
