// The sandbox's protected history: in a private channel that keeps its history from new members, a subscriber reads only what they received.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

describe("a private channel with protected history", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  const call = async (
    handle: string,
    method: string,
    path: string,
    form?: Record<string, string>,
  ) => {
    const u = sandbox.user(handle);
    const res = await fetch(`${sandbox.url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const post = (handle: string, to: string, content: string) =>
    call(handle, "POST", "/messages", { type: "channel", to, topic: "t", content });
  const topicContents = async (handle: string, channel: string) => {
    const narrow = JSON.stringify([{ operator: "channel", operand: channel }]);
    const res = await call(
      handle,
      "GET",
      `/messages?anchor=newest&num_before=50&num_after=0&apply_markdown=false&narrow=${encodeURIComponent(narrow)}`,
    );
    return ((res.messages ?? []) as { content: string }[]).map((m) => m.content);
  };

  it("hides what was sent before a subscriber joined, unless the channel shares its history", async () => {
    const created = await call("adam", "POST", "/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name: "vault" }]),
      invite_only: "true",
    });
    expect(created.result).toBe("success");
    const shared = await call("adam", "POST", "/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name: "open-book" }]),
      invite_only: "true",
      history_public_to_subscribers: "true",
    });
    expect(shared.result).toBe("success");
    const early = await post("adam", "vault", "before mia");
    const earlyShared = await post("adam", "open-book", "before mia, shared");
    const mia = String(sandbox.user("mia").userId);
    for (const name of ["vault", "open-book"])
      await call("adam", "POST", "/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name }]),
        principals: JSON.stringify([Number(mia)]),
      });
    await post("adam", "vault", "after mia");

    const { subscriptions } = (await call("mia", "GET", "/users/me/subscriptions")) as {
      subscriptions: { name: string; history_public_to_subscribers: boolean }[];
    };
    expect(
      Object.fromEntries(subscriptions.map((s) => [s.name, s.history_public_to_subscribers])),
    ).toMatchObject({ vault: false, "open-book": true });
    expect(await call("mia", "GET", `/messages/${String(early.id)}`)).toMatchObject({
      result: "error",
      msg: "Invalid message(s)",
    });
    expect(await topicContents("mia", "vault")).toEqual(["after mia"]);
    expect(await topicContents("adam", "vault")).toEqual(["before mia", "after mia"]);
    expect(await call("mia", "GET", `/messages/${String(earlyShared.id)}`)).toMatchObject({
      result: "success",
    });
    expect(await topicContents("mia", "open-book")).toEqual(["before mia, shared"]);
  });
});
