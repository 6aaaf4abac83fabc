// A certificate refused while polling stops the event loop once, saying why, instead of retrying for ever.
import { expect, it } from "vitest";
import type { ApiClient } from "../../src/client/client.js";
import { CertificateError } from "../../src/client/errors.js";
import { EventQueue, recoveryFor } from "../../src/inbound/event-queue.js";

it("recoveryFor says fatal for a CertificateError (old code: backoff, for ever)", () => {
  const error = new CertificateError("the server's certificate has expired", "Renew it", {
    endpoint: "GET /events",
  });
  expect(recoveryFor(error)).toEqual({ action: "fatal" });
});

it("the loop stops at the first certificate error of a poll and reports it", async () => {
  let polls = 0;
  const client = {
    longPollTimeoutMs: 90_000,
    events: {
      register: async () => ({ queue_id: "q1", last_event_id: -1, zulip_feature_level: 400 }),
      get: async () => {
        polls++;
        throw new CertificateError("the server's certificate has expired", "Renew it", {
          endpoint: "GET /events",
        });
      },
      deleteQueue: async () => ({}),
    },
  } as unknown as ApiClient;
  const queue = new EventQueue({ client, backoff: { baseMs: 1, capMs: 1 } });
  const fatal = new Promise<unknown>(
    (resolve) => void queue.start(() => undefined, { onFatal: resolve }),
  );
  const error = await Promise.race([
    fatal,
    new Promise((r) => setTimeout(() => r("no onFatal in 5 s"), 5_000)),
  ]);
  expect(error).toBeInstanceOf(CertificateError);
  await new Promise((r) => setTimeout(r, 50));
  expect(polls).toBe(1);
  await queue.stop();
});
