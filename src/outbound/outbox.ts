// The outbox: a send that fails is resent without doubling (read-back first), waiting out outages up to a deadline.
import type { ApiClient } from "../client/client.js";
import { sleep } from "../client/backoff.js";
import {
  DEFAULT_DEADLINE,
  deadlineDelay,
  isUncertain,
  type DeadlinePolicy,
} from "../client/retry.js";
import type { Narrow } from "../api/common.js";
import type { Message, SendParams } from "../api/messages.js";
import type { Logger } from "../log/logger.js";
import { RecentIds } from "../state/recent-ids.js";

/**
 * Whether `m` is the message `params` would have posted: same conversation, and same content
 * unless `anyContent` (a message edited since it was posted).
 */
function matches(m: Message, params: SendParams, anyContent = false): boolean {
  if (!anyContent && m.content.trim() !== params.content.trim()) return false;
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

export interface OutboxOptions {
  api: ApiClient;
  /** The bot's user ID (to find its own messages). */
  me: () => number;
  /** A message ID every message sent from now on is above (the highest the bot has seen). */
  floor: () => number;
  /**
   * How long a send (or a read-back) keeps trying through transport faults, 5xx and rate limits
   * before the error reaches the handler; `attempts` optionally caps the tries too. Default:
   * 5 minutes, backoff from 250 ms capped at 10 s.
   */
  retry?: Partial<DeadlinePolicy>;
  log: Logger;
  now?: () => number;
}

/** Sending with read-back; one per bot. */
export interface Outbox {
  /**
   * Sends a message so that it is neither dropped nor doubled: rate limits and outages are waited
   * out (up to the deadline), and after a 5xx or a lost connection the bot's messages in that
   * conversation are read back before sending again.
   */
  send(params: SendParams): Promise<{ id: number }>;
  /**
   * The ID of a message `params` posted above `floor` (not one already accounted for), read back
   * from the bot's newest messages in that conversation; tried again until the server answers
   * (up to the deadline, then it throws). Undefined when it is not there. With `anyContent` (a
   * message edited since, e.g. a stream) the oldest such message in the conversation is taken,
   * whatever it says.
   */
  landed(
    params: SendParams,
    floor: number,
    options?: { anyContent?: boolean },
  ): Promise<number | undefined>;
  /** Marks IDs as accounted for, so a read-back never takes them for another message. */
  confirm(ids: readonly number[]): void;
}

/**
 * The bot's outbox: sends that survive outages without doubling.
 *
 * @example
 * const outbox = createOutbox({ api, me: () => bot.me.userId, floor: () => ledger.highestSeen, log });
 * await outbox.send({ type: "channel", to: "general", topic: "hi", content: "hello" });
 */
export function createOutbox(options: OutboxOptions): Outbox {
  const policy: DeadlinePolicy = { ...DEFAULT_DEADLINE, ...options.retry };
  const now = options.now ?? Date.now;
  const confirmed = new RecentIds(10_000);

  async function lookOnce(
    params: SendParams,
    floor: number,
    anyContent = false,
  ): Promise<number | undefined> {
    const { messages } = await options.api.messages.list({
      anchor: "newest",
      num_before: READ_BACK,
      num_after: 0,
      narrow: ownMessagesThere(params, options.me()),
      apply_markdown: false,
    });
    return messages.find(
      (m) => m.id > floor && !confirmed.has(m.id) && matches(m, params, anyContent),
    )?.id;
  }

  /**
   * Runs `attempt` until it succeeds, retrying transient failures up to the deadline. `failed`:
   * the first attempt was already made (at `startedAt`) and threw this; the next one is number 1.
   */
  async function persist<T>(
    what: string,
    attempt: (n: number) => Promise<T>,
    failed?: { error: unknown; startedAt: number },
  ): Promise<T> {
    const startedAt = failed?.startedAt ?? now();
    let error = failed?.error;
    for (let n = failed ? 1 : 0; ; n++) {
      if (n > 0) {
        const wait = deadlineDelay(error, n - 1, startedAt, now(), policy);
        if (wait === undefined) throw error;
        options.log.warn({ err: error, attempt: n, waitMs: wait }, `${what} failed; trying again`);
        await sleep(wait);
      }
      try {
        return await attempt(n);
      } catch (thrown) {
        error = thrown;
      }
    }
  }

  const landed: Outbox["landed"] = (params, floor, options) =>
    persist("checking whether a send arrived", () =>
      lookOnce(params, floor, options?.anyContent === true),
    );

  /**
   * The first attempt is made here, without `persist`'s async steps (every reply takes this path
   * and nearly every one succeeds at once); a failure hands over to `persist` as its attempt 0.
   */
  function send(params: SendParams): Promise<{ id: number }> {
    const floor = options.floor();
    const startedAt = now();
    return options.api.messages.send(params).then(
      (sent) => {
        confirmed.add(sent.id);
        return sent;
      },
      (error: unknown) => resend(params, floor, { error, startedAt }),
    );
  }

  /** The attempts after a failed first send (`failed`), each after a read-back when unsure. */
  function resend(
    params: SendParams,
    floor: number,
    failed: { error: unknown; startedAt: number },
  ): Promise<{ id: number }> {
    /** An earlier attempt may have posted the message: read back before sending again. */
    let unsure = isUncertain(failed.error);
    return persist(
      "sending",
      async () => {
        if (unsure) {
          const id = await lookOnce(params, floor);
          if (id !== undefined) {
            options.log.info(
              { messageId: id },
              "a send that seemed to fail had arrived; not resending",
            );
            confirmed.add(id);
            return { id };
          }
          unsure = false;
        }
        try {
          const sent = await options.api.messages.send(params);
          confirmed.add(sent.id);
          return sent;
        } catch (error) {
          unsure = isUncertain(error);
          throw error;
        }
      },
      failed,
    );
  }

  return {
    send,
    landed,
    confirm: (ids) => {
      for (const id of ids) confirmed.add(id);
    },
  };
}

/** The outbox's `send` alone (see `createOutbox`). */
export const reliableSend = (options: OutboxOptions): Outbox["send"] => createOutbox(options).send;
