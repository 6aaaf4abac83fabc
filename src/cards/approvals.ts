// ctx.approve: an Approve / Reject card that waits for days, journaled; the decision reaches the handler that asked, or a new run of its message after a restart.
import type { Logger } from "../log/logger.js";
import type { Message } from "../api/messages.js";
import type { SchedulerClock, TimerHandle } from "../scheduler/clock.js";
import { MAX_TIMER_MS } from "../scheduler/clock.js";
import {
  ApprovalPendingError,
  type ApprovalDecision,
  type ApproveOptions,
  type CardOrigin,
} from "../model/cards.js";
import type { ApprovalRecord } from "./book.js";
import { expiryMs } from "./render.js";
import { DONE_EMOJI, type CardRuntime } from "./runtime.js";
import type { ActionContext } from "./actions.js";
import type { Router } from "../dispatch/router.js";

/** How long an approval stays open when `expires` is not given. */
export const DEFAULT_APPROVAL_MS = 86_400_000;

export interface ApprovalsOptions {
  cards: CardRuntime;
  log: Logger;
  timers: SchedulerClock;
  /**
   * Runs a message through the bot again (its handler calls `ctx.approve` again and gets the
   * decision at once): how a decision reaches a handler whose process has ended.
   */
  rehandle(message: Message, flags: string[]): Promise<unknown>;
}

/**
 * Approvals: `approve` posts a card of two built-in actions (`approve`, `reject`; other names
 * when a plugin took those) and journals it with the message whose handler asked. A click, or the
 * expiry on the bot's clock, decides once; the decision is journaled before it is handed on.
 */
export class Approvals {
  readonly #o: ApprovalsOptions;
  readonly #waiters = new Map<
    string,
    { resolve: (decision: ApprovalDecision) => void; reject: (error: unknown) => void }
  >();
  readonly #timers = new Map<string, TimerHandle>();
  /** The two actions' names, chosen at `register`. */
  #names = { approve: "approve", reject: "reject" };

  constructor(options: ApprovalsOptions) {
    this.#o = options;
  }

  /**
   * Registers the approve and reject actions in `router` (a plugin set's, once its plugins have set
   * up, as it is swapped in: once per set).
   */
  register(router: Router): void {
    const free = (name: string): string =>
      this.#o.cards.hasCommand(name, router) ? `approval-${name}` : name;
    this.#names = { approve: free("approve"), reject: free("reject") };
    for (const outcome of ["approved", "rejected"] as const) {
      const name = outcome === "approved" ? this.#names.approve : this.#names.reject;
      this.#o.cards.action(
        "builtin",
        name,
        { description: `Decides an approval card (${outcome === "approved" ? "yes" : "no"})` },
        (ctx) => this.#clicked(ctx, outcome),
        router,
      );
    }
  }

  async #clicked(ctx: ActionContext, outcome: "approved" | "rejected"): Promise<void> {
    const token = ctx.action.token;
    const card = token === undefined ? undefined : await this.#o.cards.book.card(token);
    if (!card?.approval) return;
    const { via, ...by } = ctx.actor;
    await this.decide(card.approval, {
      outcome,
      approved: outcome === "approved",
      by: { ...by, via },
      at: this.#o.timers.now(),
    });
  }

  /** `ctx.approve(question, options)`. */
  async approve(
    origin: CardOrigin,
    question: string,
    options: ApproveOptions,
  ): Promise<ApprovalDecision> {
    const key = `${origin.message.id}:${origin.nextApproval()}`;
    const known = await this.#o.cards.book.approval(key);
    if (known?.decision) {
      origin.skipSend();
      if (!known.delivered) await this.#o.cards.book.putApproval({ ...known, delivered: true });
      return known.decision;
    }
    const wait = new Promise<ApprovalDecision>((resolve, reject) =>
      this.#waiters.set(key, { resolve, reject }),
    );
    if (known) origin.skipSend();
    else {
      const ms = expiryMs(options.expires ?? DEFAULT_APPROVAL_MS, "ctx.approve");
      const labels = { approve: "Approve", reject: "Reject", ...options.labels };
      const card = await this.#o.cards.card(
        origin,
        {
          heading: question,
          ...(options.body !== undefined && { body: options.body }),
          choices: [
            { label: labels.approve, action: this.#names.approve, emoji: "check" },
            { label: labels.reject, action: this.#names.reject, emoji: "cross_mark" },
          ],
          ...(options.approvers && { allow: options.approvers }),
          expires: ms,
        },
        `made:approval:${key}`,
      );
      const record = (await this.#o.cards.book.card(card.token))!;
      await this.#o.cards.book.putCard({ ...record, approval: key });
      const approval: ApprovalRecord = {
        key,
        token: card.token,
        message: origin.message,
        flags: origin.messageFlags,
        expiresAt: record.expiresAt!,
      };
      await this.#o.cards.book.putApproval(approval);
      this.#arm(approval);
    }
    origin.suspend();
    return wait;
  }

  /** Decides approval `key` once: journaled, the card closed, then handed to whoever waits. */
  decide(key: string, decision: ApprovalDecision): Promise<void> {
    return this.#o.cards.book.exclusive(`approval:${key}`, async () => {
      const record = await this.#o.cards.book.approval(key);
      if (!record || record.decision) return;
      record.decision = decision;
      await this.#o.cards.book.putApproval(record);
      this.#disarm(key);
      await this.#close(record, decision);
      await this.#deliver(record);
    });
  }

  async #close(record: ApprovalRecord, decision: ApprovalDecision): Promise<void> {
    const card = await this.#o.cards.book.card(record.token);
    if (!card) return;
    if (!card.done) await this.#o.cards.book.putCard({ ...card, done: true });
    const emoji = decision.outcome === "expired" ? "hourglass" : DONE_EMOJI;
    await this.#o.cards
      .mark(card.messageId, emoji)
      .catch((error: unknown) =>
        this.#o.log.warn({ err: error }, "cards: could not mark an approval decided"),
      );
  }

  /** Hands the decision on: to the handler still waiting, else to a new run of its message. */
  async #deliver(record: ApprovalRecord): Promise<void> {
    const waiter = this.#waiters.get(record.key);
    if (waiter) {
      this.#waiters.delete(record.key);
      await this.#o.cards.book.putApproval({ ...record, delivered: true });
      waiter.resolve(record.decision!);
      return;
    }
    await this.#o.rehandle(record.message, record.flags);
    const now = await this.#o.cards.book.approval(record.key);
    if (now && !now.delivered) await this.#o.cards.book.putApproval({ ...now, delivered: true });
  }

  /** The expiry timer of an open approval (re-armed past the longest timer Node keeps). */
  #arm(record: ApprovalRecord): void {
    this.#disarm(record.key);
    const left = record.expiresAt - this.#o.timers.now();
    const handle = this.#o.timers.setTimer(
      () => {
        this.#timers.delete(record.key);
        if (this.#o.timers.now() < record.expiresAt) return this.#arm(record);
        void this.decide(record.key, {
          outcome: "expired",
          approved: false,
          at: record.expiresAt,
        }).catch((error: unknown) =>
          this.#o.log.error(
            { err: error, approval: record.key },
            "cards: an approval's expiry failed",
          ),
        );
      },
      Math.min(Math.max(0, left), MAX_TIMER_MS),
    );
    this.#timers.set(record.key, handle);
  }

  #disarm(key: string): void {
    const handle = this.#timers.get(key);
    if (handle !== undefined) this.#o.timers.clearTimer(handle);
    this.#timers.delete(key);
  }

  /** At start: open approvals get their expiry timers; decided ones not yet handed on are handed on. */
  async start(): Promise<void> {
    for (const record of await this.#o.cards.book.approvals()) {
      if (!record.decision) this.#arm(record);
      else if (!record.delivered)
        await this.#deliver(record).catch((error: unknown) =>
          this.#o.log.error(
            { err: error, approval: record.key },
            "cards: could not hand on a decision",
          ),
        );
    }
  }

  /** At stop: timers cleared; handlers still waiting end quietly (a decision re-runs them). */
  stop(): void {
    for (const key of [...this.#timers.keys()]) this.#disarm(key);
    for (const [key, waiter] of this.#waiters) waiter.reject(new ApprovalPendingError(key));
    this.#waiters.clear();
  }
}
