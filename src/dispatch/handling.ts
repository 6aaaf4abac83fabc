// One message through the bot: its turn and context, an open question's answer, admission (ignore-self, followers, gate), the pipeline.
import type { Message } from "../api/messages.js";
import type { Follows } from "../context/follows.js";
import type { Logger } from "../log/logger.js";
import {
  MessageContextObject,
  type ContextServices,
  type MessageContext,
} from "../context/context.js";
import { takeAnswer } from "../context/answers.js";
import type { Dialogs } from "../context/session.js";
import type { Quarantine } from "../state/quarantine.js";
import { notify, type BotObserver } from "../model/observer.js";
import type { Middleware } from "./compose.js";
import { conversationKey, type Conversation } from "../model/conversation.js";
import { address, isOneToOne, type RespondTo } from "./gate.js";
import type { HandedOn } from "./overlap-lanes.js";
import type { TopicMoves } from "./topic-moves.js";
import { MessageTurn, PromisedRelease, type ClaimedTurn, type TurnHooks } from "./turn.js";

/** What the bot's services learn of each message: its count (metrics) and the outgoing-webhook split. */
export interface MessageOutcomes {
  /**
   * Before a message's pipeline: true when the message is left to the outgoing webhook (see
   * `leftToWebhook`); it is then counted handled and the pipeline must not run.
   */
  leaveToWebhook(ctx: MessageContext): boolean;
  /**
   * After a message's pipeline: counts it handled, or failed when the pipeline threw (`threw`) or
   * a handler did (`failed`). Hooks rather than a middleware: they cost no promise per message.
   */
  finished(ctx: MessageContext, threw: boolean): void;
  /** Marks a message whose handler threw (the router catches those) so it counts as failed. */
  failed(ctx: MessageContext): void;
  /**
   * In outgoing-webhook mode, true for a mention or direct message seen on the event queue: the
   * server POSTs it to the webhook too, and only that copy is handled (answers to `ask` included).
   */
  leftToWebhook(ctx: MessageContext): boolean;
}

export interface MessageHandlerOptions {
  log: Logger;
  /** Counting (`finished`) and the outgoing-webhook split (`leaveToWebhook`, `leftToWebhook`). */
  outside: Pick<MessageOutcomes, "finished" | "leaveToWebhook" | "leftToWebhook">;
  dialogs: Dialogs<MessageContext>;
  follows: Follows;
  prefix: string;
  respondTo: RespondTo;
  observer?: BotObserver;
  /** Messages quarantined (their handler failed too often) are not run again. */
  quarantine?: Pick<Quarantine, "has">;
  /**
   * Topic moves: a message of a conversation that state is moving into waits for it, and the
   * handlers running in a moved conversation reply in its new place.
   */
  moves?: Pick<TopicMoves, "any" | "pending" | "onMove">;
}

/**
 * Handles each message the intake (or the cluster) hands over: builds its turn and context, offers
 * it to an open question, else runs the pipeline. `admit` is the pipeline's first stage. Until
 * `ready()` (at start, once plugins set up) nothing is handled.
 */
export class MessageHandler {
  /** Pipelines running; stop waits for them. */
  readonly inflight = new Inflight();
  readonly #o: MessageHandlerOptions;
  #pipeline: ((ctx: MessageContext) => Promise<void>) | undefined;
  #services: ContextServices | undefined;
  /** One object per bot, not per message: told when each turn's pipeline ended. */
  readonly #hooks: TurnHooks;
  /** Contexts whose pipeline runs now (a topic move relocates those of the moved conversation). */
  readonly #live = new Set<MessageContext>();

  constructor(options: MessageHandlerOptions) {
    this.#o = options;
    options.moves?.onMove((from, to) => this.#relocate(from, to));
    const { outside, log } = options;
    const inflight = this.inflight;
    const live = this.#live;
    this.#hooks = {
      ended(ctx, threw, error) {
        live.delete(ctx);
        outside.finished(ctx, threw);
        if (threw) log.error({ err: error, messageId: ctx.message.id }, "message pipeline failed");
        inflight.leave();
      },
    };
  }

  /** A topic moved: the handlers running in its conversation reply in its new place. */
  #relocate(from: string, to: Conversation): void {
    for (const ctx of this.#live)
      if (ctx instanceof MessageContextObject && conversationKey(ctx.conversation) === from)
        ctx.relocate(to);
  }

  /** Whether the pipeline is composed (after which middleware can no longer be added). */
  get isReady(): boolean {
    return this.#pipeline !== undefined;
  }

  /** At start: the composed pipeline and what every context shares. */
  ready(pipeline: (ctx: MessageContext) => Promise<void>, services: ContextServices): void {
    this.#pipeline = pipeline;
    this.#services = services;
  }

  /**
   * Runs one message the intake claimed, and releases it (`claimed.release`) when its
   * conversation may move on: the fast path, with no promise of its own (see `#begin`).
   */
  readonly start = (claimed: ClaimedTurn): void => {
    this.#begin(
      new MessageTurn(this.#hooks, claimed.arrivedAt, claimed),
      claimed.message,
      claimed.flags,
    );
  };

  /** `start` for a caller that awaits the turn: resolves when its conversation may move on. */
  readonly handle = (
    message: Message,
    flags: string[],
    arrivedAt: number | undefined,
  ): Promise<HandedOn | undefined> => {
    const release = new PromisedRelease();
    this.#begin(new MessageTurn(this.#hooks, arrivedAt, release), message, flags);
    return release.promise;
  };

  /**
   * Cluster mode acknowledges a message when `handle` resolves, so there the conversation waits
   * for the call that takes the message: overlap strategies run as `queue` (docs/agents.md).
   */
  readonly handleWhole = async (message: Message, flags: string[]): Promise<void> => {
    const later = await this.handle(message, flags, performance.now());
    if (later) await later.delivered;
  };

  /**
   * The built-in admission, one stage that runs for every message: the bot's own messages stop
   * here; who follows the conversation is marked (`ctx.follow`, and those follows kept alive);
   * then the gate. Synchronous unless someone follows a conversation, so that compose makes no
   * promise and no `next` closure for three checks.
   */
  readonly admit: Middleware<MessageContext> = (ctx, next) => {
    if (ctx.message.sender_id === ctx.me.userId) return undefined;
    if (this.#o.follows.maybeAny) return this.#markFollowers(ctx).then(() => this.#gate(ctx, next));
    return this.#gate(ctx, next);
  };

  /**
   * Builds the turn's context and offers it to an open question, else runs the pipeline. The turn
   * is released when the pipeline ends (with the hand-over when a handler's overlap strategy holds
   * the message for a later call), or earlier when a handler waits for an answer (ctx.ask). One
   * turn object, one context and two `then` callbacks per message, without an async frame.
   */
  #begin(turn: MessageTurn, message: Message, flags: string[]): void {
    const services = this.#services!;
    const { prefix, respondTo, dialogs, outside } = this.#o;
    const ctx = new MessageContextObject({
      message,
      flags,
      addressing: address(message.content, {
        isDirect: message.type === "private",
        oneToOne: isOneToOne(message),
        bot: services.me,
        prefix,
        respondTo,
      }),
      services,
      turn,
    });
    turn.ctx = ctx;
    // The answer to an open question goes to the handler that asked, not to the router; in
    // outgoing-webhook mode a mention's queue copy is not offered, or one answer would count twice.
    if (
      dialogs.mayHave() &&
      message.sender_id !== services.me.userId &&
      !outside.leftToWebhook(ctx)
    )
      void takeAnswer(ctx, dialogs)
        .then((taken) => (taken ? turn.end() : this.#run(turn)))
        .catch((error: unknown) => {
          this.#o.log.error({ err: error, messageId: message.id }, "message pipeline failed");
          turn.end();
        });
    else this.#run(turn);
  }

  /** Runs the pipeline for the turn's context (ctx.ask may release the turn before it ends). */
  #run(turn: MessageTurn): void {
    const moves = this.#o.moves;
    if (moves?.any) {
      const moving = moves.pending(conversationKey(turn.ctx.conversation));
      if (moving)
        return void moving
          .then(() => this.#run(turn))
          .catch((error: unknown) => {
            this.#o.log.error(
              { err: error, messageId: turn.ctx.message.id },
              "message pipeline failed",
            );
            turn.end();
          });
    }
    if (this.#o.outside.leaveToWebhook(turn.ctx)) return turn.end();
    if (this.#o.quarantine?.has(turn.ctx.message.id)) {
      this.#o.log.warn(
        { messageId: turn.ctx.message.id },
        `skipping message ${turn.ctx.message.id}: it is quarantined (its handler failed too often)`,
      );
      return turn.end();
    }
    this.inflight.enter();
    this.#live.add(turn.ctx);
    turn.follow(this.#pipeline!(turn.ctx));
  }

  async #markFollowers(ctx: MessageContext): Promise<void> {
    const { follows } = this.#o;
    const key = conversationKey(ctx.conversation);
    ctx.followedBy = await follows.followers(key);
    if (ctx.followedBy.length > 0) await follows.touch(key);
  }

  /** Addressed messages, all with `respondTo: "all"`, and followed conversations go on. */
  #gate(ctx: MessageContext, next: () => Promise<void>): unknown {
    if (ctx.addressedVia !== null || this.#o.respondTo === "all" || ctx.followedBy.length > 0)
      return next();
    notify(this.#o.observer?.ignored, ctx.message.id, { reason: "not-addressed" });
    return undefined;
  }
}

/** Counts pipelines running; `whenNone()` resolves when none is (stop waits for them). */
export class Inflight {
  #count = 0;
  #waiters: (() => void)[] = [];

  enter(): void {
    this.#count++;
  }

  leave(): void {
    if (--this.#count > 0 || this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  whenNone(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
