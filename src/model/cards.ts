// Cards and actions as shared nouns: what a card offers, who may click, who clicked, approvals, and the service contexts call.
import type { Message } from "../api/messages.js";
import type { RoleName } from "../api/common.js";

/**
 * Who may click a card's choices: a user passes when any listed rule admits them (their role is
 * in `roles`, they are in `users`, or `asker` and they sent the message the card answers).
 * Absent or empty: everyone who can see the card.
 */
export interface Allow {
  roles?: readonly RoleName[];
  /** User IDs or emails, e.g. the on-call group's members. */
  users?: readonly (number | string)[];
  /** The user whose message made the card. */
  asker?: boolean;
}

/** One choice of a card: a button (web), a typeable command (everywhere), a reaction chip (optional). */
export interface CardChoice {
  /** The button's text and the choice's name in the card's text, e.g. `Approve`. */
  label: string;
  /** The action (`bot.action(name, ...)`) a click runs. */
  action: string;
  /** The action's arguments as they would be typed after it (`v1.2 --force`); default none. */
  args?: string;
  /** An emoji name (`check`): the bot reacts with it on its card, and a reaction with it clicks. */
  emoji?: string;
}

/** What `ctx.card` posts. */
export interface CardSpec {
  /** The card's title (bold in the text, the zform's heading). Plain text: it is escaped. */
  heading: string;
  /** Markdown under the heading, written by the plugin (not escaped). */
  body?: string;
  choices: readonly CardChoice[];
  /** Who may click; default everyone who sees the card. */
  allow?: Allow;
  /** How long the choices stay open: milliseconds or a duration (`1d`, `90 minutes`). Default none. */
  expires?: number | string;
}

/** How a click reached the bot. */
export type ClickTransport = "message" | "reaction" | "vote";

/** Who clicked (`ctx.actor`), and how. */
export interface Actor {
  userId: number;
  email: string;
  fullName: string;
  /** `message`: the zform's reply text or the same text typed; `reaction`: a chip; `vote`: a poll vote. */
  via: ClickTransport;
}

/** A card as its record keeps it: stable ID (its token) and the message that shows it now. */
export interface CardRef {
  /** The card's short token, the same across updates. */
  readonly token: string;
  /** The message that shows the card now (it changes when the card is updated). */
  readonly messageId: number;
}

/** What `update` changes: any part of the spec; `done` closes the card (no more clicks). */
export type CardUpdate = Partial<Omit<CardSpec, "expires">> & { done?: boolean };

/** A card posted by `ctx.card`, or the one a click came from (`ctx.action.card`). */
export interface Card extends CardRef {
  /**
   * Re-posts the card with `changes` (a widget message is never edited): the old message is
   * deleted where the server allows, else marked done with a reaction; the card's current
   * message ID is kept in storage. Resolves with the card as it is now.
   */
  update(changes: CardUpdate): Promise<Card>;
}

/** The outcome of `ctx.approve`. */
export interface ApprovalDecision {
  outcome: "approved" | "rejected" | "expired";
  /** True when approved. */
  approved: boolean;
  /** Who decided; absent when it expired. */
  by?: Omit<Actor, "via"> & { via?: ClickTransport };
  /** When it was decided (epoch milliseconds). */
  at: number;
}

/** Options of `ctx.approve`. */
export interface ApproveOptions {
  /** Who may decide; default the asker's organization, everyone who sees it. */
  approvers?: Allow;
  /** How long it stays open: milliseconds or a duration (`1d`). Default one day. */
  expires?: number | string;
  /** Button labels; default `Approve` and `Reject`. */
  labels?: { approve?: string; reject?: string };
  /** Markdown under the question. */
  body?: string;
}

/** Options of `ctx.poll` beyond its question and options. */
export interface PollOptions {
  /** An action run for each vote (`bot.action`), its arguments the option's text. */
  action?: string;
  /** Who may vote for the action to run (others are told their vote does not count). */
  allow?: Allow;
}

/** One option of a poll with its votes. */
export interface PollOptionTally {
  key: string;
  text: string;
  votes: number;
  voters: number[];
}

/** A poll's question and its options' votes, as the web client counts them. */
export interface PollTally {
  question: string;
  options: PollOptionTally[];
}

/**
 * The handling context as the card service needs it: the message handled, the plugin, and its
 * sends (through the reply guard, so a re-run posts nothing twice).
 */
export interface CardOrigin {
  readonly message: Message;
  readonly messageFlags: string[];
  readonly plugin: string | undefined;
  /** Replies with `content` and the zform widget. */
  post(content: string, widget: Record<string, unknown>): Promise<{ id: number }>;
  /** Counts one send without sending (a re-run whose card was posted in an earlier run). */
  skipSend(): void;
  /** The n-th approval of this handling, from 0. */
  nextApproval(): number;
  /** The handler waits for days: the message no longer holds up its conversation. */
  suspend(): void;
}

/** What contexts ask of the bot's cards (src/cards/runtime.ts builds it). */
export interface CardService {
  card(origin: CardOrigin, spec: CardSpec): Promise<Card>;
  approve(origin: CardOrigin, question: string, options: ApproveOptions): Promise<ApprovalDecision>;
  /** Records a poll the bot posted whose votes run an action. */
  watchPoll(
    origin: CardOrigin,
    messageId: number,
    options: string[],
    poll: PollOptions,
  ): Promise<void>;
}

/**
 * What `ctx.approve` rejects with when the bot stops while it waits: the handler ends quietly (it
 * is not a failure), and once decided the next start runs the handler again with the decision.
 */
export class ApprovalPendingError extends Error {
  constructor(readonly approval: string) {
    super(
      `the bot stopped while approval ${approval} was open; its decision runs the handler again`,
    );
    this.name = "ApprovalPendingError";
  }
}
