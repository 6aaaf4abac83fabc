import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import plugin from "./index.js";

describe("the Chat SDK example", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it("follows a topic after a mention, echoes it, and stops when told", async () => {
    t = await createTestBot({ plugins: [plugin] });
    await t.send("@**Topic Bot** hello", { topic: "demo" });
    const hi = await t.expectReply(/^Hi! I'm following this topic now/);
    await t.settle();
    expect(t.reactions(hi.id).map((r) => r.emoji)).toEqual(["wave"]);
    await t.send("no mention here", { topic: "demo" });
    await t.expectReply("You said: no mention here");
    await t.send("stop", { topic: "demo" });
    await t.expectReply("Bye! Mention me to start again.");
    await t.send("still there?", { topic: "demo" });
    await t.expectNoReply();
  });
});
