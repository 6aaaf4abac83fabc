// How a handler takes messages that reach its conversation while it still runs: the option plugins and command specs name.

/**
 * - `queue`: each message in turn (the lanes' default).
 * - `latest`: after the running call, one more call with the newest message; the ones in between
 *   are handed to it as `skipped`.
 * - `burst`: wait until no message came for `quietMs`, then one call with the last message and
 *   the others as `skipped` (a person typing three lines gets one answer).
 * - `interrupt`: a new message aborts the running call (`signal`), then a call with the new
 *   message runs; the interrupted messages are handed to it as `skipped`.
 * - `concurrent`: every message at once, up to `maxConcurrent`.
 */
export type OverlapMode = "queue" | "latest" | "burst" | "interrupt" | "concurrent";

export interface OverlapStrategy {
  mode: OverlapMode;
  /** `burst`: the quiet time that ends a burst, in ms. Default 1500. */
  quietMs?: number;
  /** `concurrent`: calls at once. Default 4. */
  maxConcurrent?: number;
  /**
   * Messages held at most per conversation (waiting, or carried into the next call). When full,
   * `admit` (and `offer`) wait for room: the conversation's lane stops, and so, past the
   * dispatcher's `maxQueued`, does polling. No message is dropped. Default 100.
   */
  maxPending?: number;
}

/** How a handler takes overlapping messages: a mode's name, or a mode with its limits. */
export type Overlap = OverlapMode | OverlapStrategy;
