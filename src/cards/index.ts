// The bot's cards assembled: the runtime (cards, actions, clicks), approvals, and the service contexts call.
import type { Message } from "../api/messages.js";
import type { CardService } from "../model/cards.js";
import type { SchedulerClock } from "../scheduler/clock.js";
import { Approvals } from "./approvals.js";
import { CardRuntime, type CardRuntimeOptions } from "./runtime.js";

export interface Cards {
  readonly runtime: CardRuntime;
  readonly approvals: Approvals;
  /** What contexts call (`ctx.card`, `ctx.approve`, `ctx.poll` with an action). */
  readonly service: CardService;
  /** After the bot is running: open approvals armed, chips added while away taken as clicks. */
  start(): Promise<void>;
  stop(): void;
}

export interface CardsOptions extends CardRuntimeOptions {
  timers: SchedulerClock;
  rehandle(message: Message, flags: string[]): Promise<unknown>;
}

/** Builds one bot's cards. */
export function createCards(options: CardsOptions): Cards {
  const runtime = new CardRuntime(options);
  const approvals = new Approvals({
    cards: runtime,
    log: options.log,
    timers: options.timers,
    rehandle: options.rehandle,
  });
  return {
    runtime,
    approvals,
    service: {
      card: (origin, spec) => runtime.card(origin, spec),
      approve: (origin, question, opts) => approvals.approve(origin, question, opts),
      watchPoll: (origin, id, opts, poll) => runtime.watchPoll(origin, id, opts, poll),
    },
    async start() {
      await approvals.start();
      await runtime.reconcile();
    },
    stop: () => approvals.stop(),
  };
}
