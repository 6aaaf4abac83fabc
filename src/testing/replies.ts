// The bot's answers as a test consumes them: the next reply (a streamed one once finished), expectations, and knowing when the bot is done.
import type { Middleware } from "../dispatch/compose.js";
import type { MessageContext } from "../context/context.js";
import type { Realm } from "../sandbox/realm.js";
import type { ObservedMessage, RealmObserver } from "./observe.js";
import { HARNESS_CLIENT } from "./people.js";
import { describeExpectation, failure, meets, type Expectation } from "./transcript.js";

export interface ReplyOptions {
  /** How long to wait for the bot. Default 3000 ms. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 3_000;

/**
 * Collects the bot's messages in order and hands them out one by one. It also knows when the bot
 * is done with what was said: the bot has seen the message (its event arrived), and every handler
 * it started has finished or is waiting for an answer in `ctx.ask`. No guessing with timers.
 */
export class Replies {
  readonly #realm: Realm;
  readonly #botId: number;
  readonly #errors: () => readonly string[];
  readonly #fromBot: ObservedMessage[] = [];
  /** The bot's messages by ID, kept current by edits. */
  readonly #byId = new Map<number, ObservedMessage>();
  /** Streams (`ctx.stream`) running now. */
  readonly #openStreams = new Set<{ open: boolean }>();
  /** The streams that were open when a message came: it is handed out once they have ended. */
  readonly #heldBy = new Map<number, { open: boolean }[]>();
  readonly #seen = new Set<number>();
  #inflight = 0;
  #asking = 0;
  /** Calls of handlers with an overlap strategy running (they run after the pipeline returned). */
  #overlapCalls = 0;
  #consumed = 0;
  readonly #wakers = new Set<() => void>();

  constructor(init: {
    realm: Realm;
    botId: number;
    observer: RealmObserver;
    errors: () => readonly string[];
  }) {
    this.#realm = init.realm;
    this.#botId = init.botId;
    this.#errors = init.errors;
    init.observer.on("message", (m) => {
      // What the test itself sends as the bot (through the harness's clients) is no reply.
      if (m.senderId === this.#botId && m.client !== HARNESS_CLIENT) {
        this.#fromBot.push(m);
        this.#byId.set(m.id, m);
        if (this.#openStreams.size > 0) this.#heldBy.set(m.id, [...this.#openStreams]);
      }
      this.#wake();
    });
    // A streamed answer's message shows its latest text; what it showed before is in `edits`.
    init.observer.on("edit", (e) => {
      const message = this.#byId.get(e.messageId);
      if (!message) return;
      (message.edits ??= []).push(e.before);
      message.content = e.content;
      this.#wake();
    });
    init.observer.on("reaction", () => this.#wake());
  }

  /** Install with `bot.on("message", replies.seen)`: the bot has received a message event. */
  readonly seen = (event: { message: { id: number } }): void => {
    this.#seen.add(event.message.id);
    this.#wake();
  };

  /** Install as the bot observer's `overlapCalls`: counts those calls as running handlers. */
  readonly overlapCalls = (running: number): void => {
    this.#overlapCalls = running;
    this.#wake();
  };

  /** Counts a streamed answer as open while `ctx.stream` runs, so its messages wait for its end. */
  #trackStreams(ctx: MessageContext): void {
    const stream = ctx.stream.bind(ctx);
    ctx.stream = async (source, options) => {
      const token = { open: true };
      this.#openStreams.add(token);
      try {
        return await stream(source, options);
      } finally {
        token.open = false;
        this.#openStreams.delete(token);
        this.#wake();
      }
    };
  }

  /** Whether message `m` is whole: no stream that was open when it came is still running. */
  #finished(m: ObservedMessage): boolean {
    const held = this.#heldBy.get(m.id);
    if (held === undefined) return true;
    if (held.some((s) => s.open)) return false;
    this.#heldBy.delete(m.id);
    return true;
  }

  /** Counts a handler as waiting while it is inside `ctx.ask` (on answers' contexts too). */
  #trackAsks(ctx: MessageContext): void {
    const ask = ctx.ask.bind(ctx);
    ctx.ask = async (question, options) => {
      const pending = ask(question, options);
      this.#asking++;
      this.#wake();
      try {
        const answer = await pending;
        if (answer) {
          this.#trackAsks(answer);
          this.#trackStreams(answer);
        }
        return answer;
      } finally {
        this.#asking--;
        this.#wake();
      }
    };
  }

  /** The middleware that counts running handlers and handlers waiting in `ctx.ask`. */
  readonly tracker: Middleware<MessageContext> = async (ctx, next) => {
    this.#trackAsks(ctx);
    this.#trackStreams(ctx);
    this.#inflight++;
    this.#wake();
    try {
      await next();
    } finally {
      this.#inflight--;
      this.#wake();
    }
  };

  #wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }

  /** Resolves on the next change (message, reaction, handled message) or after `ms`; false on timeout. */
  changed(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), Math.max(0, ms));
      const waker = (): void => done(true);
      const done = (changed: boolean): void => {
        clearTimeout(timer);
        this.#wakers.delete(waker);
        resolve(changed);
      };
      this.#wakers.add(waker);
    });
  }

  /** Waits until `check` returns a value, re-checking on every change; throws `onTimeout()` after `timeoutMs`. */
  async until<T>(
    check: () => T | undefined,
    timeoutMs: number,
    onTimeout: () => Error,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw onTimeout();
      await this.changed(left);
    }
  }

  fail(problem: string): Error {
    return failure(problem, { realm: this.#realm, botId: this.#botId, errors: this.#errors() });
  }

  all(): ObservedMessage[] {
    return [...this.#fromBot];
  }

  /** Bot messages not handed out by `next` yet. */
  unread(): ObservedMessage[] {
    return this.#fromBot.slice(this.#consumed);
  }

  /** Hands out every unread message at once. */
  drain(): ObservedMessage[] {
    const unread = this.unread();
    this.#consumed = this.#fromBot.length;
    return unread;
  }

  /**
   * The bot's next message not yet handed out; a streamed answer's once its stream has ended,
   * showing its final text (`edits`: what it showed before).
   */
  async next(options: ReplyOptions = {}, waitingFor = "a reply"): Promise<ObservedMessage> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const message = await this.until(
      () => {
        const m = this.#fromBot[this.#consumed];
        return m !== undefined && this.#finished(m) ? m : undefined;
      },
      timeoutMs,
      () => {
        const m = this.#fromBot[this.#consumed];
        return this.fail(
          m === undefined
            ? `The bot sent no message within ${timeoutMs} ms; expected ${waitingFor}.`
            : `The bot's streamed answer did not end within ${timeoutMs} ms (so far: ${JSON.stringify(m.content)}); expected ${waitingFor}.`,
        );
      },
    );
    this.#consumed++;
    return message;
  }

  /** The next reply, which must meet `expected`. */
  async expect(expected: Expectation, options: ReplyOptions = {}): Promise<ObservedMessage> {
    const wanted = describeExpectation(expected);
    const reply = await this.next(
      options,
      `a reply ${typeof expected === "string" ? "" : "matching "}${wanted}`,
    );
    if (!meets(reply.content, expected))
      throw this.fail(
        `The bot's reply did not match.\n  expected: ${wanted}\n  received: ${JSON.stringify(reply.content)}`,
      );
    return reply;
  }

  /**
   * Waits until the bot is done with message `id`: it has received it, and every handler is
   * finished or waiting for an answer (checked twice, a few event loop turns apart).
   */
  async settle(id: number, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const idle = (): boolean => this.#inflight + this.#overlapCalls === this.#asking;
    while (Date.now() < deadline) {
      if (this.#seen.has(id) && idle()) {
        await turns();
        if (idle()) {
          await turns();
          if (idle()) return;
        }
        continue;
      }
      await this.changed(deadline - Date.now());
    }
  }

  /** Fails when the bot has said anything not yet consumed (which then counts as consumed). */
  expectNothingMore(context: string): void {
    const extra = this.drain();
    if (extra.length === 0) return;
    throw this.fail(
      `${context}: the bot said more than expected:\n${extra.map((m) => `  ${JSON.stringify(m.content)}`).join("\n")}`,
    );
  }
}

/** A few event loop turns: lets replies already on the wire land. */
async function turns(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
