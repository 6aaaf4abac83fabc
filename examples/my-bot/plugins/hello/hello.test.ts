// The hello plugin, tested against topicbot's embedded server: speak as a user, read the reply.
import { afterEach, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import hello from "./index.js";

let t: TestBot | undefined;
afterEach(async () => {
  await t?.close();
});

it("greets the sender with the configured greeting", async () => {
  t = await createTestBot({ plugins: [{ plugin: hello, settings: { greeting: "Bonjour" } }] });
  await t.send("!hello", { as: "mia" });
  expect((await t.reply()).content).toBe("Bonjour, Mia Member!");
});

it("says Hello by default", async () => {
  t = await createTestBot({ plugins: [hello] });
  await t.dm("hello", { as: "adam" });
  expect((await t.reply()).content).toBe("Hello, Adam Admin!");
});
