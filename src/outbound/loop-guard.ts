// The loop guard: pauses a plugin that sends too fast into one conversation, instead of flooding it.

export interface LoopGuardOptions {
  /** Messages one plugin may send into one conversation within `windowMs`. */
  maxMessages: number;
  windowMs: number;
  /** How long a tripped plugin stays paused in that conversation. */
  pauseMs: number;
  now?: () => number;
}

export const DEFAULT_LOOP_GUARD: LoopGuardOptions = {
  maxMessages: 20,
  windowMs: 10_000,
  pauseMs: 60_000,
};

export interface GuardVerdict {
  allowed: boolean;
  /** True exactly once per trip, so the caller logs the reason once. */
  tripped: boolean;
  /** When the pause ends (epoch ms), if paused. */
  pausedUntil?: number;
}

/**
 * Counts sends per (plugin, conversation) in a sliding window. Past the limit the pair is paused:
 * sends are refused until the pause ends. Memory is bounded by forgetting idle pairs.
 */
export class LoopGuard {
  readonly #options: LoopGuardOptions;
  readonly #now: () => number;
  readonly #sends = new Map<string, number[]>();
  readonly #paused = new Map<string, number>();

  constructor(options: Partial<LoopGuardOptions> = {}) {
    this.#options = { ...DEFAULT_LOOP_GUARD, ...options };
    this.#now = options.now ?? Date.now;
  }

  /** Records an attempt to send; says whether it may go out. */
  check(plugin: string, conversation: string): GuardVerdict {
    const key = `${plugin}\u0000${conversation}`;
    const now = this.#now();
    const until = this.#paused.get(key);
    if (until !== undefined) {
      if (now < until) return { allowed: false, tripped: false, pausedUntil: until };
      this.#paused.delete(key);
      this.#sends.delete(key);
    }
    const since = now - this.#options.windowMs;
    const times = (this.#sends.get(key) ?? []).filter((t) => t > since);
    times.push(now);
    this.#sends.set(key, times);
    if (times.length > this.#options.maxMessages) {
      const pausedUntil = now + this.#options.pauseMs;
      this.#paused.set(key, pausedUntil);
      this.#sends.delete(key);
      return { allowed: false, tripped: true, pausedUntil };
    }
    this.#forgetIdle(since);
    return { allowed: true, tripped: false };
  }

  #forgetIdle(since: number): void {
    if (this.#sends.size < 1_000) return;
    for (const [key, times] of this.#sends) if (times.at(-1)! <= since) this.#sends.delete(key);
  }
}

/** A send refused because its plugin is paused in that conversation (the reason was logged once). */
export class LoopGuardError extends Error {
  override readonly name = "LoopGuardError";
  readonly plugin: string;
  readonly conversation: string;
  readonly pausedUntil: number;

  constructor(plugin: string, conversation: string, pausedUntil: number) {
    super(
      `plugin "${plugin}" is paused in ${conversation} until ${new Date(pausedUntil).toISOString()}: it sent too many messages there too fast`,
    );
    this.plugin = plugin;
    this.conversation = conversation;
    this.pausedUntil = pausedUntil;
  }
}
