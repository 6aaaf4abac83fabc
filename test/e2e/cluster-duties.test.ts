// Cluster mode e2e: duties done once across 3 nodes (a cron tick, a webhook delivery), and each node's /healthz and /metrics.
import { afterAll, describe, expect, it } from "vitest";
import { waitUntil } from "../chaos/helpers.js";
import { startCluster, type TestCluster } from "../helpers/cluster.js";
import { runBot } from "../helpers/process.js";

describe("cluster: duties once across 3 nodes", () => {
  let cluster: TestCluster | undefined;
  afterAll(async () => {
    await cluster?.close();
  });

  it("fires a cron job once per tick, posts a webhook delivered to every node once, and reports each node's role", async () => {
    cluster = await startCluster({
      nodes: 3,
      extraConfig: [
        "http: { port: 0 }",
        "schedules:",
        "  - { name: tick, cron: '* * * * * *', channel: general, topic: cron, message: 'tick {{ iso }}' }",
        "webhooks:",
        "  - path: /hooks/ci",
        "    auth: { type: token, token: s3cret-token }",
        "    channel: general",
        "    topic: ci",
        "    template: 'build {{ payload.n }}'",
      ],
    });
    const { sandbox } = cluster;
    const urls = cluster.nodes.map(
      (n) => /"webhooks":\{"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(n.stdout.text)?.[1],
    );
    expect(urls.every(Boolean), "each node's receiver URL in its ready line").toBe(true);
    const topicMessages = (topic: string) =>
      sandbox.realm.messages.filter((m) => m.topic === topic).map((m) => m.content);

    // Every node gets the same deliveries, as a load balancer retrying on each would send them.
    const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}/hooks/ci`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-webhook-token": "s3cret-token",
          ...headers,
        },
        body: JSON.stringify(body),
      }).then((r) => r.status);
    const statuses = await Promise.all([
      ...urls.map((url) => post(url!, { n: 1 }, { "x-request-id": "delivery-1" })),
      ...urls.map((url) => post(url!, { n: 2 })),
    ]);
    expect(statuses.every((s) => s === 200)).toBe(true);

    await waitUntil(
      () => topicMessages("cron").length >= 4,
      30_000,
      () => `${topicMessages("cron").length} cron posts`,
    );
    const ticks = topicMessages("cron");
    expect(new Set(ticks).size, `each tick posted once: ${ticks.join(", ")}`).toBe(ticks.length);
    expect(topicMessages("ci").sort()).toEqual(["build 1", "build 2"]);

    interface Health {
      cluster: { role: string; partitions: { partition: number }[] };
    }
    const readHealth = () =>
      Promise.all(
        urls.map(async (url) => (await (await fetch(`${url}/healthz`)).json()) as Health),
      );
    const ownedBy = (hs: Health[]) =>
      hs.flatMap((h) => h.cluster.partitions.map((p) => p.partition)).sort((a, b) => a - b);
    // Partitions may still be moving between nodes on a loaded machine: wait (bounded) for a settled view.
    let health = await readHealth();
    for (let i = 0; i < 100 && ownedBy(health).length !== 16; i++) {
      await new Promise((r) => setTimeout(r, 200));
      health = await readHealth();
    }
    const roles = health.map((h) => h.cluster?.role);
    expect(roles.filter((r) => r === "leader")).toHaveLength(1);
    expect(roles.filter((r) => r === "worker")).toHaveLength(2);
    const owned = health.flatMap((h) =>
      h.cluster.partitions.map((p: { partition: number }) => p.partition),
    );
    expect(owned.sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 16 }, (_, i) => i),
    );
    // A lock renewed late on a loaded machine shows as unowned until its node takes it again (each
    // lease is 1.5 s): read the status until every partition has its owner, for at most 15 s.
    let status = await runBot(["cluster", "status", "--config", cluster.config]);
    for (let tries = 1; tries < 15 && status.stdout.includes("(unowned)"); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      status = await runBot(["cluster", "status", "--config", cluster.config]);
    }
    expect(status.stderr).toBe("");
    expect(status.stdout).toMatch(/^leader: \S+ \(fencing token \d+/m);
    expect(status.stdout).toContain("members (3):");
    expect(status.stdout).toContain("partitions (16):");
    expect(status.stdout).not.toContain("(unowned)");
    const metrics = await (await fetch(`${urls[0]}/metrics`)).text();
    expect(metrics).toMatch(/topicbot_cluster_partitions_owned \d+/);
    expect(metrics).toMatch(/topicbot_cluster_lease_age_seconds/);
  }, 180_000);
});
