// Overlap lanes: one handler's OverlapController per conversation, and the hand-over of its messages to the intake.
import { MessageContextObject, type MessageContext } from "../context/context.js";
import { conversationKey, type Conversation } from "../model/conversation.js";
import type { OverlapStrategy } from "../model/overlap.js";
import { OverlapController, type OverlapCall, type OverlapTimers } from "./overlap.js";

/**
 * A message the pipeline handed on (an overlap strategy holds it for a later call): its lane is
 * released at once, and it is delivered when `delivered` resolves true (the call that took it
 * ended). False means it was never handled (the bot stopped first): it stays unfinished in the
 * ledger, below the watermark's reach, so catch-up hands it over again after a restart.
 */
export interface HandedOn {
  readonly delivered: Promise<boolean>;
}

/** What every handler's lanes share: timers, the count of running calls, and whether the bot stopped. */
export class OverlapRoom {
  readonly timers: OverlapTimers | undefined;
  readonly #onCalls: ((running: number) => void) | undefined;
  readonly #all = new Set<OverlapLanes>();
  #running = 0;
  #closed = false;

  constructor(options: { timers?: OverlapTimers; onCalls?: (running: number) => void } = {}) {
    this.timers = options.timers;
    this.#onCalls = options.onCalls;
  }

  /** Calls of handlers with an overlap strategy running now. */
  get running(): number {
    return this.#running;
  }

  get closed(): boolean {
    return this.#closed;
  }

  add(lanes: OverlapLanes): void {
    this.#all.add(lanes);
  }

  called(delta: 1 | -1): void {
    this.#running += delta;
    this.#onCalls?.(this.#running);
  }

  /**
   * A topic moved (its conversation `from` is now `to`): each handler's lane there goes with it,
   * so the next message in `to` meets the call still running (and the messages held) for `from`,
   * and those messages' calls reply in `conversation`.
   */
  move(from: string, to: string, conversation: Conversation): void {
    if (from !== to) for (const lanes of this.#all) lanes.move(from, to, conversation);
  }

  /** The bot is stopping: messages no call has taken are abandoned (caught up after a restart). */
  close(): void {
    this.#closed = true;
    for (const lanes of this.#all) lanes.close();
  }
}

/** The hand-over of each context whose message an overlap strategy holds (set only on that path). */
const handedOnOf = new WeakMap<MessageContext, HandedOn>();
/** Whether any hand-over was made in this process (see `handedOn`). */
let anyHandedOn = false;

/**
 * The hand-over the router made for `ctx`, if its handler has an overlap strategy. A fast path
 * for bots (and times) without one: every message's turn asks this when it ends, and until the
 * first hand-over the answer is known without a WeakMap lookup.
 */
export function handedOn(ctx: MessageContext): HandedOn | undefined {
  return anyHandedOn ? handedOnOf.get(ctx) : undefined;
}

/**
 * The lanes of one handler with an overlap strategy: per conversation an OverlapController,
 * created at its first message and dropped when nothing is held or running. `admit` resolves once
 * the controller holds the message (the conversation may move on); the message's hand-over
 * resolves when the call that took it ended.
 */
export class OverlapLanes {
  readonly strategy: Required<OverlapStrategy>;
  readonly #room: OverlapRoom;
  readonly #controllers = new Map<string, OverlapController<MessageContext>>();
  /** The conversation each controller serves now (a topic move changes it). */
  readonly #keys = new WeakMap<OverlapController<MessageContext>, string>();
  /** Runs one call of the handler (set by the router once it knows how to report errors). */
  #run: ((ctx: MessageContext) => Promise<void>) | undefined;

  constructor(strategy: Required<OverlapStrategy>, room: OverlapRoom) {
    this.strategy = strategy;
    this.#room = room;
    room.add(this);
  }

  runWith(run: (ctx: MessageContext) => Promise<void>): void {
    this.#run = run;
  }

  async admit(ctx: MessageContext): Promise<void> {
    const key = conversationKey(ctx.conversation);
    let controller = this.#controllers.get(key);
    if (!controller) {
      const created = new OverlapController<MessageContext>(
        this.strategy,
        (call) => this.#call(call),
        {
          ...(this.#room.timers && { timers: this.#room.timers }),
          onIdle: () => {
            const now = this.#keys.get(created)!;
            if (this.#controllers.get(now) === created) this.#controllers.delete(now);
          },
        },
      );
      this.#keys.set(created, key);
      if (this.#room.closed) created.close();
      this.#controllers.set(key, created);
      controller = created;
    }
    let settle!: (handled: boolean) => void;
    const delivered = new Promise<boolean>((resolve) => (settle = resolve));
    handedOnOf.set(ctx, { delivered });
    anyHandedOn = true;
    await controller.admit(ctx, (outcome) => settle(outcome !== "abandoned"));
  }

  /** One call: the newest message's context, with the messages it folds in and its signal. */
  async #call(call: OverlapCall<MessageContext>): Promise<void> {
    const ctx = call.message;
    ctx.skipped = call.skipped.map((c) => c.message);
    ctx.signal = call.signal;
    this.#room.called(1);
    try {
      await this.#run!(ctx);
    } finally {
      this.#room.called(-1);
    }
  }

  /**
   * The lane of conversation `from` serves `to` now, unless `to` has a lane of its own already;
   * either way the messages it holds reply in `to` (their contexts are relocated).
   */
  move(from: string, to: string, conversation: Conversation): void {
    const controller = this.#controllers.get(from);
    if (!controller) return;
    for (const ctx of controller.held())
      if (ctx instanceof MessageContextObject) ctx.relocate(conversation);
    if (this.#controllers.has(to)) return;
    this.#controllers.delete(from);
    this.#controllers.set(to, controller);
    this.#keys.set(controller, to);
  }

  close(): void {
    for (const controller of [...this.#controllers.values()]) controller.close();
  }
}
