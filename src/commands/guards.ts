// Who may run a command, and how often: role checks and the per-user command rate limit.
import { code } from "../markdown/escape.js";
import type { RoleName } from "../api/common.js";
import { formatDuration } from "../context/time.js";
import { describeRoles } from "./help.js";

/** At most `commands` commands per user in any `perSeconds` window. */
export interface RateLimit {
  commands: number;
  perSeconds: number;
}

/** The roles from `role` up: `atLeast("moderator")` is owners, administrators and moderators. */
export function atLeast(role: Exclude<RoleName, "guest"> | "guest"): RoleName[] {
  const order: RoleName[] = ["owner", "administrator", "moderator", "member", "guest"];
  return order.slice(0, order.indexOf(role) + 1);
}

/** The refusal for a sender whose role is not among `roles`. */
export function roleRefusal(command: string, roles: readonly RoleName[], prefix: string): string {
  return `Sorry, ${code(`${prefix}${command}`)} is only for ${describeRoles(roles)}.`;
}

/** What the limiter decided for one command. */
export type RateDecision =
  | { allowed: true }
  /** Dropped; `notify` is true for the first drop of a window, so the user is told once. */
  | { allowed: false; notify: boolean; retryInMs: number };

/** A sliding-window limit per user; remembers only users active within the window. */
export class CommandRateLimiter {
  readonly #limit: RateLimit;
  readonly #now: () => number;
  readonly #seen = new Map<number, { times: number[]; notified: boolean }>();

  constructor(limit: RateLimit, now: () => number = Date.now) {
    if (!(limit.commands >= 1) || !(limit.perSeconds > 0))
      throw new RangeError(
        `rate limit needs commands >= 1 and perSeconds > 0, got ${JSON.stringify(limit)}`,
      );
    this.#limit = limit;
    this.#now = now;
  }

  /**
   * Counts one command by `userId` and says whether it may run. `sentAt` (epoch ms) is when the
   * command was sent, which is what the window counts: commands sent while the bot was down and
   * handled together by catch-up were not sent together, and are not a flood. Default: now.
   */
  check(userId: number, sentAt: number = this.#now()): RateDecision {
    const windowMs = this.#limit.perSeconds * 1000;
    const entry = this.#seen.get(userId) ?? { times: [], notified: false };
    // Catch-up can hand one user's commands over out of order (one conversation after another):
    // what counts is the commands sent within the window before this one.
    const latest = Math.max(sentAt, ...entry.times.slice(-1));
    entry.times = entry.times.filter((t) => latest - t < windowMs);
    if (entry.times.length === 0) entry.notified = false;
    this.#seen.set(userId, entry);
    if (this.#seen.size > 10_000) this.#sweep(latest, windowMs);
    const inWindow = entry.times.filter((t) => t <= sentAt && sentAt - t < windowMs);
    if (inWindow.length < this.#limit.commands) {
      // Kept in order, so that the last is the latest.
      let i = entry.times.length;
      while (i > 0 && entry.times[i - 1]! > sentAt) i--;
      entry.times.splice(i, 0, sentAt);
      entry.notified = false;
      return { allowed: true };
    }
    const notify = !entry.notified;
    entry.notified = true;
    return { allowed: false, notify, retryInMs: windowMs - (sentAt - inWindow[0]!) };
  }

  /** The polite note sent once when a user is being limited. */
  static message(retryInMs: number): string {
    return `You're sending commands faster than I can take them; I'll ignore your commands for ${formatDuration(Math.max(1000, retryInMs))}.`;
  }

  #sweep(now: number, windowMs: number): void {
    for (const [id, e] of this.#seen)
      if (e.times.every((t) => now - t >= windowMs)) this.#seen.delete(id);
  }
}
