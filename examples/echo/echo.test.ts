import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import echo from "./index.js";

describe("the echo example", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({ plugins: [echo] });
  });
  afterAll(async () => {
    await t.close();
  });

  it("repeats the text after !echo", async () => {
    await t.send("!echo hello there");
    expect((await t.reply()).content).toBe("hello there");
  });

  it("explains itself when given nothing to repeat", async () => {
    await t.dm("echo");
    expect((await t.reply()).content).toMatch(/Say something after `echo`/);
  });
});
