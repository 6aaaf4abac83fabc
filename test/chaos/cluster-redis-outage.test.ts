// Chaos: the cluster's Redis goes down (SIGKILL, back on its AOF) for 1 s, 5 s, ... with 200 ms handlers in flight; nothing lost, nothing twice, order kept.
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "./helpers.js";
import { awaitHealth, startCluster, streamCommands, type TestCluster } from "../helpers/cluster.js";
import { runBot } from "../helpers/process.js";

/** Outage lengths in seconds, in order (`npm run chaos`: 1,5,15,60). */
const OUTAGES = (process.env.CHAOS_REDIS_OUTAGES ?? "1,5").split(",").map(Number);
const PER_PHASE = Number(process.env.CHAOS_REDIS_PER_PHASE ?? 40);
/** `kill`: SIGKILL, then a new redis-server on the AOF; `freeze`: SIGSTOP, then SIGCONT (nothing answers, nothing refuses). */
const MODE = process.env.CHAOS_REDIS_MODE === "freeze" ? "freeze" : "kill";
const TOPICS = 4;

/** Runs, each on a new cluster and Redis (`npm run chaos`: 2). */
const RUNS = Number(process.env.CHAOS_REDIS_RUNS ?? 1);

describe("chaos: the cluster's Redis goes away and comes back", () => {
  let cluster: TestCluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  for (let run = 1; run <= RUNS; run++)
    it(
      `run ${run} of ${RUNS}: rides out Redis outages (${MODE}) of ${OUTAGES.join(", ")} s with 200 ms handlers in flight`,
      async () => {
        cluster = await startCluster({
          nodes: 2,
          env: { WORK_MS: "200" },
          extraConfig: ["http: { port: 0 }"],
          byFlag: true, // `--cluster` gives the Redis; the config's `cluster:` has no `redis:`
        });
        const { sandbox, redis, nodes } = cluster;
        const stream = streamCommands(sandbox, {
          count: PER_PHASE * (OUTAGES.length + 1),
          users: 6,
          topics: TOPICS,
          window: 2,
        });
        const answered = () => stream.answeredAt.size;
        const inFlightAtKill: number[] = [];
        const resumeMs: number[] = [];
        for (const [i, seconds] of OUTAGES.entries()) {
          await waitUntil(
            () => answered() >= PER_PHASE * (i + 0.5),
            120_000,
            () => `${answered()} answered before outage ${i + 1} (${seconds} s)`,
          );
          // Kill while commands are sent and not yet answered (handlers of 200 ms mid-way).
          await waitUntil(
            () => stream.commands.length - answered() >= 2,
            30_000,
            () => "commands in flight",
          );
          inFlightAtKill.push(stream.commands.length - answered());
          if (MODE === "kill") await redis.kill();
          else redis.freeze();
          const killedAt = Date.now();
          await awaitHealth(
            nodes,
            (s) => s === "degraded",
            Math.max(seconds * 1000, 1_500) + 3_000,
          );
          if (i === 0) {
            const status = await runBot(["cluster", "status", "--cluster", redis.url]);
            expect(status.stdout).toMatch(/^state: degraded \(Redis unreachable at /m);
            expect(status.code).toBe(1);
          }
          // Commands sent while Redis is down, one in every topic: answered once it is back.
          const probes = await Promise.all(
            Array.from({ length: TOPICS }, (_, t) => stream.send(t, `topic ${t}`)),
          );
          const wait = seconds * 1000 - (Date.now() - killedAt);
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          expect(
            probes.filter((c) => stream.answeredAt.has(c.id)),
            "answered without Redis",
          ).toEqual([]);
          if (MODE === "kill") await redis.start();
          else redis.thaw();
          const backAt = Date.now();
          await waitUntil(
            () => probes.every((c) => stream.answeredAt.has(c.id)),
            30_000,
            () =>
              `commands sent during the ${seconds} s outage unanswered 30 s after Redis came back`,
          );
          resumeMs.push(Date.now() - backAt);
          await awaitHealth(nodes, (s) => s === "ok", 15_000);
        }
        await stream.finish(); // every command answered once, per-topic order kept
        expect(inFlightAtKill.every((n) => n > 0)).toBe(true);
        const logs = nodes.map((n) => n.stdout.text).join("\n");
        expect(logs).toContain("Redis reachable again");
        expect(logs).not.toContain("MaxRetriesPerRequestError");
        console.log(
          `redis outages (${MODE}) ${OUTAGES.join(",")} s: ${stream.commands.length} commands, in flight at each kill ${inFlightAtKill.join(",")}, commands sent during each outage all answered ${resumeMs.join(",")} ms after Redis was back, 0 lost, 0 twice, order kept`,
        );
      },
      120_000 + OUTAGES.reduce((a, b) => a + b, 0) * 1000 * 2,
    );
});
