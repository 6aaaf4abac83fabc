// Chaos: `bot start` processes on file storage killed with SIGKILL at random points; every command answered once, in order.
import { afterAll, describe, expect, it } from "vitest";
import { botReplies, expectEachAnsweredOnceInOrder } from "./helpers.js";
import { killRun, type KillRunResult } from "./kill-run.js";

/** `npm run chaos` sets CHAOS_KILLS=200; `npm test` runs 30. */
const KILLS = Number(process.env.CHAOS_KILLS ?? 30);

describe("chaos: SIGKILL at random points", () => {
  let run: KillRunResult | undefined;
  afterAll(async () => run?.close());

  it(
    `${KILLS} kills of real bot processes: 0 lost, 0 duplicated, per-topic order`,
    async () => {
      run = await killRun({
        kills: KILLS,
        users: 5,
        topics: 4,
        sendEveryMs: 500,
        perUser: 20 + KILLS * 2,
      });
      const replies = botReplies(run.sandbox);
      const counts = new Map<number, number>();
      for (const r of replies) counts.set(r.answers, (counts.get(r.answers) ?? 0) + 1);
      const figures = {
        kills: KILLS,
        where: run.kills,
        killedBeforeReady: run.beforeReady,
        commands: run.commands.length,
        replies: replies.length,
        lost: run.commands.filter((c) => !counts.has(c.id)).length,
        duplicated: [...counts.values()].filter((n) => n > 1).length,
        seconds: run.seconds,
      };
      console.log(`sigkill chaos: ${JSON.stringify(figures)}`);
      expect(run.kills.random + run.kills["journal write"] + run.kills["catch-up"]).toBe(KILLS);
      expectEachAnsweredOnceInOrder(run.sandbox, run.commands);
    },
    120_000 + KILLS * 20_000,
  );

  // A run whose commands are all sent and answered before the kills are done: the bots that follow
  // are killed idle, with nothing to catch up on. The harness once waited 30-90 s per such kill for
  // progress that could not come (a CI rehearsal ran past the timeout above that way).
  it("kills of idle bots, after every command is answered: still none lost or duplicated", async () => {
    const idle = await killRun({ kills: 9, users: 5, topics: 4, sendEveryMs: 200, perUser: 2 });
    try {
      expect(idle.kills.random + idle.kills["journal write"] + idle.kills["catch-up"]).toBe(9);
      expectEachAnsweredOnceInOrder(idle.sandbox, idle.commands);
    } finally {
      await idle.close();
    }
  }, 120_000);
});
