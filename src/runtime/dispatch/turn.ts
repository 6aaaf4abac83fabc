// A message's turn in its conversation's lane: the promise the lane waits on, and what ends it.
import type { ContextTurn, MessageContext } from "../context/context.js";
import type { HandedOn } from "../delivery/intake.js";
import { handedOn } from "./overlap-lanes.js";

/** The resolve function of the promise made last (see `MessageTurn`'s constructor). */
let captured: ((value: HandedOn | undefined) => void) | undefined;
const capture = (resolve: (value: HandedOn | undefined) => void): void => {
  captured = resolve;
};

/** What a turn tells the bot when its pipeline ended (one object per bot, not per message). */
export interface TurnHooks {
  /** The pipeline of `ctx` ended; `threw` with its `error` when it rejected. */
  ended(ctx: MessageContext, threw: boolean, error: unknown): void;
}

/**
 * One message's turn: `released` resolves when its conversation may move on, which is when its
 * pipeline ends (`end()`) or earlier, when a handler starts waiting for an answer (`ctx.ask`
 * calls `suspend()`), with the hand-over if the router made one (an overlap strategy holds the
 * message). One object per message instead of two closures and an executor: this is made for
 * every message. The context and its turn point at each other (`ctx` is set once it is built).
 */
export class MessageTurn implements ContextTurn {
  readonly released: Promise<HandedOn | undefined>;
  ctx!: MessageContext;
  /**
   * `performance.now()` when the message reached the intake, kept here (not in a map by message
   * ID) for the first reply's latency; cleared when the pipeline ends (later replies are not timed).
   */
  arrivedAt: number | undefined;
  readonly #resolve: (value: HandedOn | undefined) => void;
  readonly #hooks: TurnHooks;

  constructor(hooks: TurnHooks, arrivedAt: number | undefined) {
    this.#hooks = hooks;
    this.arrivedAt = arrivedAt;
    // The executor is one shared function: it hands the resolve function over through `captured`.
    this.released = new Promise(capture);
    this.#resolve = captured!;
    captured = undefined;
  }

  /** A handler waits for an answer: the conversation moves on now (later calls change nothing). */
  suspend(): void {
    this.#resolve(handedOn(this.ctx));
  }

  /** The turn ends without its pipeline (the message was taken another way). */
  end(): void {
    this.#resolve(handedOn(this.ctx));
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

  #ended(threw: boolean, error: unknown): void {
    this.arrivedAt = undefined;
    this.#hooks.ended(this.ctx, threw, error);
    this.end();
  }
}
