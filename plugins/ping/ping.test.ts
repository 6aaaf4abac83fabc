import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import ping from "./index.js";

describe("ping", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({ plugins: [ping] });
  });
  afterAll(async () => {
    await t.close();
  });

  it("has a description and registers the ping command", () => {
    expect(ping.description).toBeTruthy();
    expect(
      t.bot
        .commands()
        .filter((c) => c.plugin === "ping")
        .map((c) => c.name),
    ).toEqual(["ping"]);
  });

  it("answers pong", async () => {
    await t.send("!ping");
    expect((await t.reply()).content).toBe("pong");
  });
});
