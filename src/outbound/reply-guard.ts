// The reply guard: a handler's n-th reply to a message goes out once, across retries, recovery and a hard kill; floods are refused.
import type { SendParams } from "../api/messages.js";
import type { Logger } from "../log/logger.js";
import { splitMessage, withContent, type SentIds, type ServerFacts } from "../context/actions.js";
import type { MessageContext, SendGuard } from "../context/context.js";
import type { GuardedSend } from "../context/context-types.js";
import type { Directory } from "../context/directory.js";
import { LoopGuardError, type LoopGuard } from "./loop-guard.js";
import type { Outbox } from "./outbox.js";
import { ReplyBook } from "../state/delivery/records.js";
import {
  DeliveryFencedError,
  type DeliveryStore,
  type ReplyIntent,
  type ReplyRecord,
} from "../state/delivery/store.js";

/** Replies to one human message that the loop guard does not count (more look like a loop). */
const ANSWERS_PER_MESSAGE = 3;

export interface ReplyGuardOptions {
  /** Where intents and outcomes are journaled. */
  store: DeliveryStore;
  outbox: Outbox;
  /** Incoming messages whose replies are remembered. Default 500. */
  capacity?: number;
  loopGuard?: LoopGuard;
  directory: Directory;
  server(): ServerFacts;
  /** Every message sent from now on gets a higher ID than this (the highest the bot has seen). */
  floor(): number;
  now(): number;
  log: Logger;
  /** A journal write failed: the reply still goes out (at least once), the failure is reported. */
  onStorageError(error: unknown): void;
  /** A journal write succeeded (ends a failure streak). */
  onStorageOk?(): void;
}

/**
 * Makes a context's `reply` and `send` exactly-once per (incoming message, reply number):
 *
 * 1. an outcome recorded for that reply (by this process or one before it): nothing is sent,
 *    the recorded message is returned;
 * 2. an intent without an outcome (the process died between writing it and recording what was
 *    posted): the bot's own messages in that conversation are read back; if the reply is there
 *    it is taken as sent;
 * 3. otherwise an intent is written durably (`DeliveryStore.intend`), the message is sent through
 *    the outbox, and the outcome is recorded.
 *
 * The loop guard sees every send that would go out, so a plugin flooding one conversation is paused.
 *
 * @example
 * const guard = new ReplyGuard({ store, outbox, directory, server, floor, now, log, onStorageError });
 * guard.restore((await store.load()).replies);
 * const services = { ...env, guard: guard.guard }; // every context sends through it
 */
export class ReplyGuard {
  readonly #o: ReplyGuardOptions;
  /** The store's record of replies when it keeps one (it enters intents and outcomes), else our own. */
  readonly #book: ReplyBook;
  /** True when `#book` is the guard's own, which it keeps current itself. */
  readonly #ownBook: boolean;
  /** Per handling (context): the shared store's records of its message, read once. */
  readonly #shared = new WeakMap<MessageContext, Promise<void>>();

  constructor(options: ReplyGuardOptions) {
    this.#o = options;
    const shared = options.store.replies;
    this.#ownBook = shared === undefined;
    this.#book = shared ?? new ReplyBook(options.capacity ?? 500);
  }

  /** Takes in the replies a store loaded at start (a store that keeps a book holds them already). */
  restore(records: ReplyRecord[]): void {
    for (const record of records) {
      if (this.#ownBook) this.#book.put(record);
      if (record.ids) this.#o.outbox.confirm(record.ids);
    }
  }

  /** The message IDs sent as reply number `index` to message `incomingId`, if it is known to have gone out. */
  sent(incomingId: number, index: number): number[] | undefined {
    return this.#book.get(incomingId, index)?.ids;
  }

  /**
   * The contexts' send guard: every reply and send of a handler goes through it, numbered per
   * incoming message by the context.
   */
  readonly guard: SendGuard = (ctx, n, send) => this.#once(ctx, n, send);

  /**
   * What the intent records of a send: its parameters with the first part of its content. The
   * context's own object when the content is one part (nearly always), not a copy of it.
   */
  #intentParams(send: GuardedSend): SendParams {
    const p = send.params();
    const first = this.#firstPart(p.content);
    return first === p.content ? p : withContent(p, first);
  }

  /**
   * The one exactly-once path of every reply and send. It waits only where there is something to
   * wait for: a shared store's records (a cluster), the sender's user record on a first reply, a read-back
   * after a restart, the intent's write and the post.
   */
  async #once(ctx: MessageContext, n: number, send: GuardedSend): Promise<SentIds> {
    const incomingId = ctx.message.id;
    const { store, loopGuard } = this.#o;
    if (store.recordsOf) await this.#readShared(ctx);
    const record = this.#book.get(incomingId, n);
    if (record?.ids && record.ids.length > 0)
      return { id: record.ids[0]!, ids: record.ids, repeated: true };
    if (loopGuard) {
      const isReply = send.kind === "reply";
      const answer = this.#isAnswerNow(ctx, n, isReply) ?? (await this.#isAnswer(ctx, n, isReply));
      if (!answer) this.#countSend(loopGuard, ctx, send.where());
    }
    if (record?.intent) {
      const found = await this.#o.outbox.landed(record.intent.params, record.intent.floor, {
        anyContent: record.intent.willEdit === true,
      });
      if (found !== undefined) {
        this.#o.log.info(
          { messageId: incomingId, reply: n, sentId: found },
          "a reply sent before a restart was found on the server; not sending it again",
        );
        this.#o.outbox.confirm([found]);
        await this.#record(incomingId, n, [found]);
        return { id: found, ids: [found], repeated: true };
      }
    }
    let params: SendParams;
    try {
      params = this.#intentParams(send);
    } catch {
      return send.post(); // A target the action refuses: let it say why.
    }
    const intent = this.#intend(incomingId, n, params, send.willEdit);
    try {
      await store.intend(intent);
      this.#o.onStorageOk?.();
    } catch (error) {
      // A fence's refusal: another process owns the message now. Any other failure is reported
      // and the reply still goes out (at least once).
      if (error instanceof DeliveryFencedError) throw error;
      this.#o.onStorageError(error);
    }
    const sent = await send.post();
    const recording = this.#record(incomingId, n, sent.ids);
    if (recording) await recording;
    return sent;
  }

  /**
   * The intent to send reply `n` to `incomingId`, entered in the guard's own book (the caller
   * journals it; a store that keeps the book enters it there when it is journaled).
   */
  #intend(incomingId: number, n: number, params: SendParams, willEdit: boolean): ReplyIntent {
    const intent: ReplyIntent = {
      incomingId,
      index: n,
      params,
      // A reply is posted after the message it answers, whatever this process has seen.
      floor: Math.max(this.#o.floor(), incomingId),
      at: this.#o.now(),
      ...(willEdit ? { willEdit: true } : {}),
    };
    if (this.#ownBook) this.#book.intend(intent);
    return intent;
  }

  /**
   * Records what was posted: at once, with no promise, with a store that takes outcomes
   * synchronously (`sentNow`: memory, file); else a promise of the store's write.
   */
  #record(incomingId: number, n: number, ids: number[]): Promise<void> | undefined {
    if (this.#ownBook) this.#book.sent(incomingId, n, ids);
    const { store } = this.#o;
    if (!store.sentNow) return this.#recordLater(incomingId, n, ids);
    try {
      store.sentNow(incomingId, n, ids);
      this.#o.onStorageOk?.();
    } catch (error) {
      this.#o.onStorageError(error);
    }
    return undefined;
  }

  /** `#record` through a store's `sent` (Redis, a key-value store). */
  async #recordLater(incomingId: number, n: number, ids: number[]): Promise<void> {
    try {
      await this.#o.store.sent(incomingId, n, ids);
      this.#o.onStorageOk?.();
    } catch (error) {
      this.#o.onStorageError(error);
    }
  }

  /**
   * A shared store (a cluster) may hold replies another process recorded for this message (it
   * handled the message before a failover): read them once per handling, before its first reply.
   */
  async #readShared(ctx: MessageContext): Promise<void> {
    const { store } = this.#o;
    if (!store.recordsOf) return;
    let read = this.#shared.get(ctx);
    if (!read) {
      read = store.recordsOf(ctx.message.id).then((records) => {
        for (const record of records) {
          this.#book.put(record);
          if (record.ids) this.#o.outbox.confirm(record.ids);
        }
      });
      this.#shared.set(ctx, read);
    }
    await read;
  }

  /** The first few replies to a human's message are answers, not a flood: the guard skips them. */
  async #isAnswer(ctx: MessageContext, n: number, isReply: boolean): Promise<boolean> {
    if (!isReply || n >= ANSWERS_PER_MESSAGE) return false;
    const sender = await this.#o.directory.user(ctx.message.sender_id).catch(() => undefined);
    return sender !== undefined && !sender.isBot;
  }

  /**
   * `#isAnswer` without waiting, when the directory has the sender at hand (it keeps every user
   * it met): undefined when that takes a wait (the sender's first message, or no such user).
   */
  #isAnswerNow(ctx: MessageContext, n: number, isReply: boolean): boolean | undefined {
    if (!isReply || n >= ANSWERS_PER_MESSAGE) return false;
    const sender = this.#o.directory.known(ctx.message.sender_id);
    return sender === undefined ? undefined : !sender.isBot;
  }

  /** Counts a send with the loop guard; throws (having logged a trip) when it may not go out. */
  #countSend(guard: LoopGuard, ctx: MessageContext, where: string): void {
    const plugin = ctx.plugin ?? "bot";
    const verdict = guard.check(plugin, where);
    if (verdict.allowed) return;
    const error = new LoopGuardError(plugin, where, verdict.pausedUntil!);
    if (verdict.tripped)
      this.#o.log.warn(
        { plugin, conversation: where, pausedUntil: verdict.pausedUntil },
        `${error.message}; its messages there are dropped until then (a reply loop?)`,
      );
    throw error;
  }

  #firstPart(content: string): string {
    const max = this.#o.server().maxMessageLength;
    // No list of parts for content that is one part as it is (see `splitMessage`'s fast path).
    if (content.length <= max) return content;
    return splitMessage(content, max)[0] ?? content;
  }
}
