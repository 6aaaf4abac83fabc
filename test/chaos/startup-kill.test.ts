// Chaos: `bot start` processes on a fresh file store killed while they start (by the clock and at each start-up line); none lost, none twice.
import { afterAll, describe, expect, it } from "vitest";
import { botReplies, expectEachAnsweredOnceInOrder } from "./helpers.js";
import { killRun, STARTUP_POINTS, type KillRunResult } from "./kill-run.js";

/** `npm run chaos` sets CHAOS_STARTUP_KILLS=60; `npm test` runs 13 (twice each point, and the first). */
const KILLS = Number(process.env.CHAOS_STARTUP_KILLS ?? 1 + 2 * STARTUP_POINTS.length);

describe("chaos: SIGKILL during start-up", () => {
  let run: KillRunResult | undefined;
  afterAll(async () => run?.close());

  it(
    `${KILLS} kills while starting, the first on a fresh store as its queue is registered: 0 lost, 0 duplicated, per-topic order`,
    async () => {
      run = await killRun({
        kills: KILLS,
        users: 5,
        topics: 4,
        sendEveryMs: 400,
        perUser: 10 + KILLS,
        startup: true,
      });
      const replies = botReplies(run.sandbox);
      const counts = new Map<number, number>();
      for (const r of replies) counts.set(r.answers, (counts.get(r.answers) ?? 0) + 1);
      const where = Object.fromEntries(Object.entries(run.kills).filter(([, n]) => n > 0));
      const figures = {
        kills: KILLS,
        where,
        killedBeforeReady: run.beforeReady,
        commands: run.commands.length,
        replies: replies.length,
        lost: run.commands.filter((c) => !counts.has(c.id)).length,
        duplicated: [...counts.values()].filter((n) => n > 1).length,
        seconds: run.seconds,
      };
      console.log(`startup chaos: ${JSON.stringify(figures)}`);
      expect(Object.values(run.kills).reduce((a, b) => a + b, 0)).toBe(KILLS);
      for (const point of STARTUP_POINTS)
        expect(run.kills[point], `kills at "${point}"`).toBeGreaterThan(0);
      expectEachAnsweredOnceInOrder(run.sandbox, run.commands);
    },
    120_000 + KILLS * 20_000,
  );
});
