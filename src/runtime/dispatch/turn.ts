// A message's turn in its conversation's lane: the promise the lane waits on, and what ends it.
import type { MessageContext } from "../context/context.js";
import type { HandedOn } from "../delivery/intake.js";
import { handedOn } from "./overlap-lanes.js";

/** The resolve function of the promise made last (see `MessageTurn`'s constructor). */
let captured: ((value: HandedOn | undefined) => void) | undefined;
const capture = (resolve: (value: HandedOn | undefined) => void): void => {
  captured = resolve;
};

/**
 * One message's turn: `released` resolves when its conversation may move on, which is when its
 * pipeline ends (`end()`) or earlier, when a handler starts waiting for an answer (`ctx.ask`
 * calls `suspend()`), with the hand-over if the router made one (an overlap strategy holds the
 * message). One object per message instead of two closures and an executor: this is made for
 * every message. The context and its turn point at each other (`ctx` is set once it is built).
 */
export class MessageTurn {
  readonly released: Promise<HandedOn | undefined>;
  ctx!: MessageContext;
  readonly #resolve: (value: HandedOn | undefined) => void;

  constructor() {
    // The executor is one shared function: it hands the resolve function over through `captured`.
    this.released = new Promise(capture);
    this.#resolve = captured!;
    captured = undefined;
  }

  /** A handler waits for an answer: the conversation moves on now (later calls change nothing). */
  suspend(): void {
    this.#resolve(handedOn(this.ctx));
  }

  /** The pipeline ended. */
  end(): void {
    this.#resolve(handedOn(this.ctx));
  }
}
