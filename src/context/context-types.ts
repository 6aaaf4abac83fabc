// The shapes a message context is made of and hands out: its services and init, sender, poll, ask options, guarded send, turn.
// Generic in the context type (`Ctx`), so that this module needs nothing of context.ts (context.ts names them for `MessageContext`).
import type { Message, SendParams } from "../api/messages.js";
import type { Logger } from "../log/logger.js";
import type { Addressing } from "../model/account.js";
import type { CardService, PollTally } from "../model/cards.js";
import { conversationKey, type Conversation } from "../model/conversation.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { ActionEnv, SentIds, SentMessage } from "./actions.js";
import type { Follows } from "./follows.js";
import type { Dialogs } from "./session.js";

export interface Sender {
  userId: number;
  email: string;
  fullName: string;
}

/** Who sent `message`. */
export function senderOf(message: Message): Sender {
  return {
    userId: message.sender_id,
    email: message.sender_email,
    fullName: message.sender_full_name,
  };
}

/** A poll the bot posted (`ctx.poll`): the message, and its votes counted on demand. */
export interface Poll extends SentMessage {
  /** The question and each option's votes, read from the server now (as the web client counts). */
  tally(): Promise<PollTally>;
}

export interface AskOptions {
  /** How long to wait for the answer. Default 5 minutes. */
  timeoutMs?: number;
}

export const DEFAULT_ASK_TIMEOUT_MS = 5 * 60_000;

/** The key under which a question to `userId` in `conversation` waits for its answer. */
export const dialogKey = (conversation: Conversation, userId: number): string =>
  `${conversationKey(conversation)}|${userId}`;

/**
 * One reply or send of a context, as the send guard sees it: how it goes, and the steps the guard
 * calls (worked out only when it calls them).
 */
export interface GuardedSend {
  readonly kind: "reply" | "send";
  /** The message is edited after it is posted (a stream), so its content is no mark. */
  readonly willEdit: boolean;
  /** The destination as the loop guard names it (only asked when the loop guard counts the send). */
  where(): string;
  /** Posts the message (several, when the content is long). */
  post(): Promise<SentIds>;
  /** What the (first) message posts: the journal's intent, to recognise it on read-back. */
  params(): SendParams;
}

/**
 * Decides where a reply goes: `post()` sends it; the outgoing-webhook mode instead captures it
 * into its HTTP answer (and answers with no IDs).
 */
export type ReplyVia = (content: string, post: () => Promise<SentIds>) => Promise<SentIds>;

/**
 * A message's turn in its conversation, as its context sees it. An object, not a callback: the
 * runtime's turn (`MessageTurn`) is made per message, and a bound callback would be one more.
 */
export interface ContextTurn {
  /** A handler starts waiting for an answer: the message no longer holds up others. */
  suspend(): void;
  /**
   * `performance.now()` when the message arrived, while its first reply is still to be timed
   * (reply latency); undefined for a message not timed or once its pipeline ended.
   */
  readonly arrivedAt?: number | undefined;
}

/**
 * Wraps every message a context sends (the runtime's exactly-once reply ledger and loop guard).
 * `n` counts the context's sends from 0.
 */
export type SendGuardOf<Ctx> = (ctx: Ctx, n: number, send: GuardedSend) => Promise<SentIds>;

/** What every context shares: the bot's services. */
export interface ContextServicesOf<Ctx> extends ActionEnv {
  log: Logger;
  /** Where sessions live; one namespace per plugin. */
  sessions: KeyValueStore;
  dialogs: Dialogs<Ctx>;
  now(): number;
  /** The configured time zone, for human times in `schedule`. */
  timeZone: string;
  /** Applied to every reply and send; none in contexts built outside a running bot. */
  guard?: SendGuardOf<Ctx>;
  /** The conversations plugins follow (`ctx.follow`); none in contexts built outside a bot. */
  follows?: Follows;
  /** Told when a context sends its first reply, with its turn's `arrivedAt` (reply latency metrics). */
  firstReply?: (ctx: Ctx, arrivedAt: number) => void;
  /** The bot's cards, actions and approvals (`ctx.card`, `ctx.approve`); none outside a bot. */
  cards?: CardService;
}

/** How a context is made: the message, how the gate read it, and the bot's services. */
export interface ContextInitOf<Ctx> {
  message: Message;
  flags: string[];
  addressing: Addressing;
  services: ContextServicesOf<Ctx>;
  /** The message's turn in its conversation (see `ContextTurn`). */
  turn?: ContextTurn;
  /** Where a reply goes (see `ReplyVia`); posted when none. */
  replyVia?: ReplyVia;
}
