// Conversation tests: say a line, expect the bot's answer, line after line, failing loudly on silence or extras.
import type { Replies } from "./replies.js";
import { describeExpectation, meets, type Expectation } from "./transcript.js";

export interface SendOptions {
  /** Who speaks: a seeded handle (`olivia`, `adam`, `max`, `mia` (default), `gus`) or a created one. */
  as?: string;
  /** Created on first use. Default `general`. */
  channel?: string;
  /** Default `test`. */
  topic?: string;
}

export interface DirectOptions {
  as?: string;
  /** Further participants besides the speaker and the bot. */
  to?: string[];
}

/** Whom a dialog speaks through: the harness's `send` and `dm`, resolving with the message's ID. */
export interface Speaker {
  send(content: string, options?: SendOptions): Promise<number>;
  dm(content: string, options?: DirectOptions): Promise<number>;
}

/**
 * One exchange: what a human says, and what the bot must answer: exact text, a pattern, a list
 * of them when it answers with several messages, or `null` when it must stay silent.
 */
export type DialogStep = readonly [
  say: string,
  expect: Expectation | readonly Expectation[] | null,
];

export interface DialogOptions extends SendOptions {
  /** Speak in a direct message to the bot instead of a channel. */
  dm?: boolean | Pick<DirectOptions, "to">;
  /** How long to wait for each answer. Default 3000 ms. */
  timeoutMs?: number;
}

/**
 * Runs a dialog against the harness: each line is sent, then each expected answer must come next
 * and nothing more may follow once the bot has handled the line.
 *
 * @example
 * await t.dialog([
 *   ["!ping", "pong"],
 *   ["!echo", /Say something/],
 *   ["just chatting", null],
 * ]);
 */
export async function dialog(
  t: Speaker,
  replies: Replies,
  steps: readonly DialogStep[],
  options: DialogOptions = {},
): Promise<void> {
  const { dm, timeoutMs, ...where } = options;
  // Anything the bot said before the dialog is not an answer to it.
  replies.expectNothingMore("before the dialog");
  for (const [index, [say, expected]] of steps.entries()) {
    const step = `step ${index + 1} (${JSON.stringify(say)})`;
    const id = dm
      ? await t.dm(say, { as: where.as, ...(typeof dm === "object" && dm) })
      : await t.send(say, where);
    const wanted: readonly Expectation[] =
      expected === null ? [] : Array.isArray(expected) ? expected : [expected as Expectation];
    for (const [n, one] of wanted.entries()) {
      const label = wanted.length > 1 ? `${step}, answer ${n + 1} of ${wanted.length}` : step;
      let reply;
      try {
        reply = await replies.next({ timeoutMs }, describeExpectation(one));
      } catch (error) {
        throw replies.fail(`${label}: ${(error as Error).message.split("\n")[0]}`);
      }
      if (!meets(reply.content, one))
        throw replies.fail(
          `${label}: the bot answered differently.\n  expected: ${describeExpectation(one)}\n  received: ${JSON.stringify(reply.content)}`,
        );
    }
    await replies.settle(id, timeoutMs);
    replies.expectNothingMore(step);
  }
}
