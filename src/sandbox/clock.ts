// The sandbox's sense of time: real by default, or the manual clock (src/time/clock.ts) tests move forward.
export { ManualClock } from "../time/clock.js";

export interface Clock {
  /** Milliseconds since the UNIX epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
