// What one incoming message may make an agent do: budgets of tool calls, topics, messages and prompt size, lower for guests.
import { safeSlice } from "../markdown/safe-cut.js";
import type { Turn } from "../context/history.js";

/** The bounds of one answer (`answer(ctx, …)`): per model call, and per incoming message. */
export interface AgentBudget {
  /** Tool calls one model call may make; the rest of that call's calls are refused. */
  toolCallsPerCall: number;
  /** Tool calls all the model calls answering one message may make together. */
  toolCalls: number;
  /** Distinct topics the tools may post to while answering one message. */
  topics: number;
  /** Messages the tools may send (posts and reminders) while answering one message. */
  messages: number;
  /** Characters of prompt in one model call: system text, history and the message; history is trimmed to fit. */
  promptChars: number;
  /** Characters of the user's own message given to the model; the rest is cut with a note. */
  messageChars: number;
}

/** A member's budget (and every role above): room for real work, not for a flood. */
export const MEMBER_BUDGET: AgentBudget = {
  toolCallsPerCall: 10,
  toolCalls: 20,
  topics: 5,
  messages: 10,
  promptChars: 32_000,
  messageChars: 8_000,
};

/** A guest's budget: a guest's message moves the bot less far than a member's. */
export const GUEST_BUDGET: AgentBudget = {
  toolCallsPerCall: 3,
  toolCalls: 5,
  topics: 1,
  messages: 2,
  promptChars: 8_000,
  messageChars: 2_000,
};

/** Budgets overriding the defaults, by role: `{ guest: { topics: 0 } }`. */
export interface BudgetOptions {
  member?: Partial<AgentBudget>;
  guest?: Partial<AgentBudget>;
}

/** The budget of a sender: the guest's for guests, else the member's, each over its defaults. */
export function budgetFor(isGuest: boolean, options: BudgetOptions = {}): AgentBudget {
  const budget = isGuest
    ? { ...GUEST_BUDGET, ...options.guest }
    : { ...MEMBER_BUDGET, ...options.member };
  for (const [key, value] of Object.entries(budget))
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(
        `answer budget.${isGuest ? "guest" : "member"}.${key}: ${value} is not a whole number >= 0`,
      );
  return budget;
}

/** The note ending a user's message cut to the budget, as the model reads it. */
export const MESSAGE_CUT_NOTE = " […the rest of this message was cut: too long]";

/**
 * Counts what one answer spends and refuses past the budget; remembers each kind of refusal so
 * the answer can tell the user (`notice()`).
 */
export class BudgetTracker {
  readonly budget: AgentBudget;
  #callTools = 0;
  #tools = 0;
  #asked = 0;
  #messages = 0;
  readonly #topics = new Set<string>();
  readonly #refused = new Map<string, number>();

  constructor(budget: AgentBudget) {
    this.budget = budget;
  }

  /** A tool call: undefined when it may go ahead, else why it may not. */
  toolCall(): string | undefined {
    this.#asked++;
    if (this.#callTools >= this.budget.toolCallsPerCall)
      return this.#refuse(`at most ${this.budget.toolCallsPerCall} tool calls per model call`);
    if (this.#tools >= this.budget.toolCalls)
      return this.#refuse(`at most ${this.budget.toolCalls} tool calls per message`);
    this.#callTools++;
    this.#tools++;
    return undefined;
  }

  /** A new model call begins: its own tool-call count starts again. */
  nextCall(): void {
    this.#callTools = 0;
  }

  /** A message about to be sent (to `topic`, when it goes to a topic): undefined, or why not. */
  message(topic?: string): string | undefined {
    if (this.#messages >= this.budget.messages)
      return this.#refuse(`at most ${this.budget.messages} messages per message answered`);
    if (topic !== undefined && !this.#topics.has(topic.toLowerCase())) {
      if (this.#topics.size >= this.budget.topics)
        return this.#refuse(`at most ${this.budget.topics} topics per message answered`);
      this.#topics.add(topic.toLowerCase());
    }
    this.#messages++;
    return undefined;
  }

  /** What was refused, as counts by reason (for the log). */
  refusals(): Record<string, number> {
    return Object.fromEntries(this.#refused);
  }

  /** The line that tells the user the budget stopped something, if it did. */
  notice(): string | undefined {
    if (this.#refused.size === 0) return undefined;
    const total = [...this.#refused.values()].reduce((a, b) => a + b, 0);
    const reasons = [...this.#refused.keys()].join("; ");
    return `\n\n*[Stopped by this bot's limits: ${total} of ${this.#asked} actions refused (${reasons}).]*`;
  }

  #refuse(reason: string): string {
    this.#refused.set(reason, (this.#refused.get(reason) ?? 0) + 1);
    return `refused: ${reason}`;
  }
}

/** The user's message within `max` characters, cut between graphemes with a note when longer. */
export function boundedMessage(text: string, max: number): string {
  if (text.length <= max) return text;
  return safeSlice(text, Math.max(0, max - MESSAGE_CUT_NOTE.length)) + MESSAGE_CUT_NOTE;
}

/** The newest turns whose text (with the speaker's name) fits in `room` characters, in order. */
export function trimHistory(turns: readonly Turn[], room: number): Turn[] {
  const kept: Turn[] = [];
  let used = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    const size = turn.text.length + turn.name.length + 2;
    if (used + size > room) break;
    used += size;
    kept.push(turn);
  }
  return kept.reverse();
}
