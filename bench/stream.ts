// Benchmark: the cost of a streamed answer (ctx.stream), edits per second sent vs what the server's rate limit allows.
import { createBot } from "../src/bot/bot.js";
import { definePlugin } from "../src/bot/plugin.js";
import type { StreamResult } from "../src/context/stream.js";
import { startSandbox, type Sandbox } from "../src/sandbox/server.js";
import { main, progress, until, type Row } from "./lib.js";

/** The sandbox's rate limit: 30 requests per 3 s per user (real servers: 200 per 60 s). */
const LIMIT = { requests: 30, windowSeconds: 3 };
const ALLOWED = LIMIT.requests / LIMIT.windowSeconds;
/** A model's answer: this many tokens, one every `TOKEN_MS` (about 200 tokens a second). */
const TOKENS = 600;
const TOKEN_MS = 5;

interface Phase {
  label: string;
  /** `minEditIntervalMs` for the stream. */
  interval: number;
}

interface Measured {
  result: StreamResult;
  /** From the first post to the last edit, in s. */
  seconds: number;
  /** Every request the bot made in that time from the API budget (posts, edits, typing). */
  requests: number;
  /** Those the sandbox refused with 429 in that time. */
  refused: number;
  /** Event polls (a budget of their own) made, and refused, in that time. */
  polls: number;
  pollsRefused: number;
  /** From the source's last token to the last edit landing, in ms. */
  lagMs: number;
  final: string;
}

/**
 * Counts the bot's requests and 429s at the sandbox's rate limiter: `requests` and `refused` in
 * the budget posts, edits and typing spend; the long poll's (a budget of its own, as on a server)
 * apart.
 */
function countRequests(sandbox: Sandbox) {
  const limiter = sandbox.rateLimiter!;
  const counts = { requests: 0, refused: 0, polls: 0, pollsRefused: 0 };
  const check = limiter.check.bind(limiter);
  limiter.check = (userId, bucket = "api") => {
    if (userId !== sandbox.bot.userId) return check(userId, bucket);
    if (bucket === "api") counts.requests++;
    else counts.polls++;
    try {
      return check(userId, bucket);
    } catch (error) {
      if (bucket === "api") counts.refused++;
      else counts.pollsRefused++;
      throw error;
    }
  };
  return counts;
}

async function measure(sandbox: Sandbox, phase: Phase): Promise<Measured> {
  const counts = countRequests(sandbox);
  let done: { result: StreamResult; sourceEnd: number; end: number; start: number } | undefined;
  const plugin = definePlugin({
    name: "story",
    setup(bot) {
      bot.command("story", { description: "streams a long answer" }, async (ctx) => {
        let sourceEnd = 0;
        async function* tokens() {
          for (let i = 0; i < TOKENS; i++) {
            if (i > 0) await new Promise((resolve) => setTimeout(resolve, TOKEN_MS));
            yield `${i === 0 ? "" : " "}w${i}`;
          }
          sourceEnd = performance.now();
        }
        const start = performance.now();
        const result = await ctx.stream(tokens(), { minEditIntervalMs: phase.interval });
        done = { result, sourceEnd, end: performance.now(), start };
      });
    },
  });
  const bot = createBot({
    server: { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey },
    plugins: [plugin],
    handleSignals: false,
    rateLimit: false,
  });
  await bot.start();
  // The window starts empty: the bot's start-up requests are not the stream's.
  await new Promise((resolve) => setTimeout(resolve, LIMIT.windowSeconds * 1000));
  counts.requests = 0;
  counts.refused = 0;
  counts.polls = 0;
  counts.pollsRefused = 0;
  const { realm } = sandbox;
  realm.postMessage({
    sender: realm.users.get(sandbox.user("mia").userId)!,
    kind: "stream",
    channel: realm.channelByName("general")!,
    topic: `stream ${phase.interval}`,
    content: "!story",
  });
  await until(() => done !== undefined, 120_000, `the ${phase.label} stream`);
  const measured = { ...counts };
  await bot.stop();
  const d = done!;
  const final = realm.messages.filter((m) => m.senderId === sandbox.bot.userId).at(-1)!.content;
  return {
    result: d.result,
    seconds: (d.end - d.start) / 1000,
    requests: measured.requests,
    refused: measured.refused,
    polls: measured.polls,
    pollsRefused: measured.pollsRefused,
    lagMs: d.end - d.sourceEnd,
    final,
  };
}

await main(async () => {
  const sandbox = await startSandbox({ rateLimit: LIMIT, heartbeatSeconds: 60 });
  const expected = Array.from({ length: TOKENS }, (_, i) => `w${i}`).join(" ");
  const rows: Row[] = [];
  const checks = [];
  try {
    for (const phase of [
      { label: "default interval (1 s)", interval: 1_000 },
      { label: "pacing only (interval 0)", interval: 0 },
    ]) {
      progress(phase.label);
      const m = await measure(sandbox, phase);
      const editsPerSecond = m.result.edits / m.seconds;
      const requestsPerSecond = m.requests / m.seconds;
      progress(
        `${m.result.edits} edits, ${m.requests} requests, ${m.refused} refused, ${m.polls} polls (${m.pollsRefused} refused) in ${m.seconds.toFixed(1)} s`,
      );
      const allowed = `allowed: ${LIMIT.requests} requests per ${LIMIT.windowSeconds} s`;
      rows.push(
        {
          metric: `${phase.label}: edits/s`,
          value: editsPerSecond,
          baseline: ALLOWED,
          unit: "/s",
          better: "lower",
          baselineIs: allowed,
        },
        {
          metric: `${phase.label}: bot requests/s (edits, posts, typing; polls have their own budget)`,
          value: requestsPerSecond,
          baseline: ALLOWED,
          unit: "/s",
          better: "lower",
          baselineIs: allowed,
        },
        {
          // The floor: the first post of each message and the edits that showed the text.
          metric: `${phase.label}: API requests per answer (${m.result.messageIds.length} post(s), ${m.result.edits} edits, typing)`,
          value: m.requests,
          baseline: m.result.messageIds.length + m.result.edits,
          unit: "",
          better: "lower",
          baselineIs: "the floor: one post per message plus the edits sent",
        },
        {
          // The floor: the poll that brought the question and the one that brought the answer's post.
          metric: `${phase.label}: event polls per answer`,
          value: m.polls,
          baseline: 2,
          unit: "",
          better: "lower",
          baselineIs:
            "2 (the question, the answer's post); each own edit waking a poll would be one more",
        },
        {
          metric: `${phase.label}: answers refused with 429`,
          value: m.refused,
          baseline: 0,
          unit: "",
          better: "lower",
          baselineIs: "none refused",
        },
        {
          metric: `${phase.label}: last edit after the last token`,
          value: m.lagMs,
          baseline: phase.interval,
          unit: "ms",
          better: "lower",
          baselineIs: "the edit interval",
        },
      );
      checks.push(
        {
          what: `${phase.label}: the whole answer is shown (${TOKENS} tokens in ${m.result.messageIds.length} message(s))`,
          ok: m.result.complete && m.final === expected,
        },
        {
          // The limit is a sliding window: a run shorter than two windows may average more than
          // its rate without breaking it (30 at once, then more as the first ones leave), so
          // "within the limit" is what the server says: nothing refused.
          what: `${phase.label}: within the rate limit (${LIMIT.requests} requests per ${LIMIT.windowSeconds} s): ${m.refused} of ${m.requests} requests and ${m.pollsRefused} of ${m.polls} polls refused with 429`,
          ok: m.refused === 0 && m.pollsRefused === 0,
          // With no interval, the client's header pacing alone must hold the line: a goal, not
          // a failure.
          ...(phase.interval === 0 ? { goal: true } : {}),
        },
      );
    }
  } finally {
    await sandbox.close();
  }
  return {
    name: "stream",
    title: "Streamed answers (ctx.stream): edits sent vs the rate limit",
    method: `A bot on the sandbox over loopback (rate limit ${LIMIT.requests} requests per ${LIMIT.windowSeconds} s per user, the client's pacing on) streams a ${TOKENS}-token answer, one token every ${TOKEN_MS} ms, into one message: once with the default 1 s between edits, once with no interval so the budget the client's pacer shares out (half the limit among open streams, the window read off the headers) and the server's rate-limit headers pace it. Beside each answer's API requests stands their floor (one post per message plus the edits sent), beside its event polls theirs (2: the question and the answer's post; the bot's own edits wake a poll only when a 2 s hold has passed). Requests are counted at the sandbox's rate limiter, from the first post to the last edit (after a quiet window, so start-up requests do not count); the event long poll spends from a budget of its own, as on a server, and is counted apart.`,
    rows,
    checks,
  };
});
