// all_public_streams reaches only what the user may read: a guest gets no messages of public channels it is not in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

describe("event queues registered with all_public_streams", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  const auth = (handle: string) => {
    const u = sandbox.user(handle);
    return `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;
  };
  const call = async (
    handle: string,
    method: string,
    path: string,
    form?: Record<string, string>,
  ) => {
    const res = await fetch(`${sandbox.url}/api/v1${path}`, {
      method,
      headers: { authorization: auth(handle), "content-type": "application/x-www-form-urlencoded" },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return (await res.json()) as Record<string, unknown>;
  };

  it("delivers a public channel's message to a member but not to a guest, as GET /messages/{id} decides", async () => {
    const lobby = sandbox.realm.addChannel("lobby");
    sandbox.realm.subscribe(lobby, sandbox.user("mia").userId);
    const register = { event_types: '["message"]', all_public_streams: "true" };
    const guest = await call("gus", "POST", "/register", register);
    const member = await call("olivia", "POST", "/register", register);
    const sent = await call("mia", "POST", "/messages", {
      type: "channel",
      to: "lobby",
      topic: "t",
      content: "hello lobby",
    });
    const events = async (handle: string, queueId: unknown) =>
      (
        (
          await call(
            handle,
            "GET",
            `/events?queue_id=${String(queueId)}&last_event_id=-1&dont_block=true`,
          )
        ).events as { type: string }[]
      ).filter((e) => e.type === "message");
    expect(await events("olivia", member.queue_id)).toHaveLength(1);
    expect(await events("gus", guest.queue_id)).toEqual([]);
    expect(await call("gus", "GET", `/messages/${String(sent.id)}`)).toMatchObject({
      result: "error",
    });
  });
});
