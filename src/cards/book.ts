// The cards' journal in the bot's storage: each card by token (its current message, choices, who took it), message IDs to tokens, approvals, action polls, votes seen.
import type { KeyValueStore } from "../state/key-value/store.js";
import type { Message } from "../api/messages.js";
import type { Allow, ApprovalDecision, CardChoice } from "../model/cards.js";
import type { Conversation } from "../model/conversation.js";

/** Where a card lives: enough to post its next version and to check a click's conversation. */
export interface CardPlace {
  conversation: Conversation;
  /** `conversationKey` of the conversation. */
  key: string;
}

/** One card as journaled. */
export interface CardRecord {
  token: string;
  plugin: string;
  /** The message showing the card now. */
  messageId: number;
  /** Earlier messages of the card (replaced by updates). */
  replaced: number[];
  place: CardPlace;
  /** Who sent the message the card answers (`allow.asker`). */
  askerId: number;
  heading: string;
  body?: string;
  choices: CardChoice[];
  allow?: Allow;
  expiresAt?: number;
  /** The first accepted click: a card's token is single-use. */
  taken?: { choice: number; userId: number; fullName: string; clickId: string; at: number };
  /** Closed by `update({ done: true })`, by a click, or by expiry. */
  done?: boolean;
  /** The approval this card asks for (`approval:<message>:<n>`). */
  approval?: string;
}

/** An approval as journaled: the card, the message whose handler asked (to run it again), the decision. */
export interface ApprovalRecord {
  key: string;
  token: string;
  message: Message;
  flags: string[];
  expiresAt: number;
  decision?: ApprovalDecision;
  /** The decision reached the handler (its wait, or a new run of its message). */
  delivered?: boolean;
}

/** A poll the bot posted whose votes run an action. */
export interface PollRecord {
  messageId: number;
  plugin: string;
  action: string;
  place: CardPlace;
  askerId: number;
  options: string[];
  allow?: Allow;
}

/** Votes and chips are remembered this long (a click older than this is not recognised again). */
const SEEN_TTL_MS = 30 * 86_400_000;

/**
 * The journal of cards. Writes go to the bot's storage (memory, file or Redis), so a restart or
 * another cluster node reads the same cards; each card's changes are serialised in this process
 * (`exclusive`), and a card's clicks all come from its conversation, whose messages one lane
 * (one partition owner in cluster mode) handles in order.
 */
export class CardBook {
  readonly #store: KeyValueStore;
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  card(token: string): Promise<CardRecord | undefined> {
    return this.#store.get<CardRecord>(`card:${token}`);
  }

  async putCard(card: CardRecord): Promise<void> {
    await this.#store.set(`card:${card.token}`, card);
    await this.#store.set(`msg:${card.messageId}`, card.token);
  }

  /** The token of the card a message shows (or showed). */
  tokenOf(messageId: number): Promise<string | undefined> {
    return this.#store.get<string>(`msg:${messageId}`);
  }

  async openCards(): Promise<CardRecord[]> {
    const out: CardRecord[] = [];
    for (const key of await this.#store.list("card:")) {
      const card = await this.#store.get<CardRecord>(key);
      if (card && !card.done && card.taken === undefined) out.push(card);
    }
    return out;
  }

  approval(key: string): Promise<ApprovalRecord | undefined> {
    return this.#store.get<ApprovalRecord>(`approval:${key}`);
  }

  putApproval(record: ApprovalRecord): Promise<void> {
    return this.#store.set(`approval:${record.key}`, record);
  }

  async approvals(): Promise<ApprovalRecord[]> {
    const out: ApprovalRecord[] = [];
    for (const key of await this.#store.list("approval:")) {
      const record = await this.#store.get<ApprovalRecord>(key);
      if (record) out.push(record);
    }
    return out;
  }

  poll(messageId: number): Promise<PollRecord | undefined> {
    return this.#store.get<PollRecord>(`poll:${messageId}`);
  }

  /** Kept as long as its votes are remembered: a poll older than that runs no more actions. */
  putPoll(record: PollRecord): Promise<void> {
    return this.#store.set(`poll:${record.messageId}`, record, { ttlMs: SEEN_TTL_MS });
  }

  /** The message IDs of the polls whose votes run actions. */
  async pollIds(): Promise<number[]> {
    return (await this.#store.list("poll:")).map((key) => Number(key.slice(5)));
  }

  /** Notes a click ID (a vote's submessage); true when it is new, false when seen before. */
  async firstSight(clickId: string): Promise<boolean> {
    const key = `seen:${clickId}`;
    if (await this.#store.has(key)) return false;
    await this.#store.set(key, 1, { ttlMs: SEEN_TTL_MS });
    return true;
  }

  /** Runs `work` after every earlier `exclusive` call of the same name has finished. */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(name) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.catch(() => undefined);
    this.#locks.set(name, tail);
    void tail.then(() => {
      if (this.#locks.get(name) === tail) this.#locks.delete(name);
    });
    return run;
  }
}
