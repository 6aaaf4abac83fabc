// A long-poll whose client goes away stops waiting at once: the route's close signal fires on a real disconnect over loopback.
import { request } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

let sandbox: Sandbox;

beforeAll(async () => {
  // A heartbeat far beyond the test: only the disconnect can end the poll in time.
  sandbox = await startSandbox({ heartbeatSeconds: 600 });
});
afterAll(() => sandbox.close());

const basic = (u: { email: string; apiKey: string }) =>
  `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;

/** Waits (bounded) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

it("ends a waiting GET /events when its client disconnects", async () => {
  const olivia = sandbox.user("olivia");
  const reg = await fetch(`${sandbox.url}/api/v1/register`, {
    method: "POST",
    headers: {
      authorization: basic(olivia),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "event_types=%5B%22message%22%5D",
  });
  const { queue_id: queueId } = (await reg.json()) as { queue_id: string };
  const queue = sandbox.realm.queues.get(queueId, olivia.userId);

  const poll = request(
    `${sandbox.url}/api/v1/events?queue_id=${encodeURIComponent(queueId)}&last_event_id=-1`,
    { headers: { authorization: basic(olivia) } },
  );
  poll.on("error", () => {});
  poll.end();
  await until(() => queue.polling, "the poll to wait");

  poll.destroy();
  await until(() => !queue.polling, "the poll to stop waiting");
  expect(queue.polling).toBe(false);
  expect(queue.events).toEqual([]);
});
