// A message's turn in its conversation's lane: what ends it, and whom it tells that the conversation may move on.
import type { MessageContext } from "../context/context.js";
import type { ContextTurn } from "../context/context-types.js";
import type { Message } from "../api/messages.js";
import { handedOn, type HandedOn } from "./overlap-lanes.js";

/** What a turn tells the bot when its pipeline ended (one object per bot, not per message). */
export interface TurnHooks {
  /** The pipeline of `ctx` ended; `threw` with its `error` when it rejected. */
  ended(ctx: MessageContext, threw: boolean, error: unknown): void;
}

/**
 * Who a turn tells, once, that its conversation may move on: the intake's `ClaimedMessage` (which
 * finishes the claim and releases the lane), or a `PromisedRelease` for callers that await it.
 */
export interface TurnRelease {
  release(handedOn: HandedOn | undefined): void;
}

/** A message the intake claimed, as the bot's fast path (`start`) gets it: handled, then released once. */
export interface ClaimedTurn extends TurnRelease {
  readonly message: Message;
  readonly flags: string[];
  /** `performance.now()` when its batch reached the intake; undefined when caught up. */
  readonly arrivedAt: number | undefined;
}

/** The resolve function of the promise made last (see `PromisedRelease`'s constructor). */
let captured: ((value: HandedOn | undefined) => void) | undefined;
const capture = (resolve: (value: HandedOn | undefined) => void): void => {
  captured = resolve;
};

/** A release as a promise, for a caller that awaits the turn (`MessageHandler.handle`). */
export class PromisedRelease implements TurnRelease {
  readonly promise: Promise<HandedOn | undefined>;
  readonly #resolve: (value: HandedOn | undefined) => void;

  constructor() {
    // The executor is one shared function: it hands the resolve function over through `captured`.
    this.promise = new Promise(capture);
    this.#resolve = captured!;
    captured = undefined;
  }

  release(handedOn: HandedOn | undefined): void {
    this.#resolve(handedOn);
  }
}

/**
 * One message's turn: its conversation may move on when its pipeline ends (`follow`, `end()`) or
 * earlier, when a handler starts waiting for an answer (`ctx.ask` calls `suspend()`), with the
 * hand-over if the router made one (an overlap strategy holds the message). Only the first of
 * these counts. The context and its turn point at each other (`ctx` is set once it is built).
 */
export class MessageTurn implements ContextTurn {
  ctx!: MessageContext;
  /**
   * `performance.now()` when the message reached the intake, kept here (not in a map by message
   * ID) for the first reply's latency; cleared when the pipeline ends (later replies are not timed).
   */
  arrivedAt: number | undefined;
  readonly #hooks: TurnHooks;
  readonly #to: TurnRelease;
  #released = false;

  constructor(hooks: TurnHooks, arrivedAt: number | undefined, to: TurnRelease) {
    this.#hooks = hooks;
    this.arrivedAt = arrivedAt;
    this.#to = to;
  }

  /**
   * A handler waits for an answer: the conversation moves on. Told on a later microtask, not from
   * inside the handler's call: the next message of the conversation must not start within it.
   */
  suspend(): void {
    this.#releaseLater();
  }

  /** The turn ends without its pipeline (the message was taken another way). */
  end(): void {
    this.#releaseLater();
  }

  /**
   * Ends the turn when `run` (the pipeline) settles, telling the hooks how it went. Two `then`
   * callbacks instead of an async frame: the frame of an async function costs several times their
   * bytes, and this runs for every message.
   */
  follow(run: Promise<void>): void {
    void run.then(
      () => this.#ended(false, undefined),
      (error: unknown) => this.#ended(true, error),
    );
  }

  /** The pipeline settled: told at once, since this already runs on its own microtask. */
  #ended(threw: boolean, error: unknown): void {
    this.arrivedAt = undefined;
    this.#hooks.ended(this.ctx, threw, error);
    if (this.#released) return;
    this.#released = true;
    this.#to.release(handedOn(this.ctx));
  }

  #releaseLater(): void {
    if (this.#released) return;
    this.#released = true;
    const handed = handedOn(this.ctx);
    queueMicrotask(() => this.#to.release(handed));
  }
}
