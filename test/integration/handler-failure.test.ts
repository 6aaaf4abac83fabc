// An action the server refuses: one log line naming plugin, handler, action and code, no stack; the sender is told what failed.
import { afterEach, expect, it } from "vitest";
import { definePlugin } from "../../src/index.js";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import { captureLog } from "../helpers/log.js";

const reacts = definePlugin({
  name: "reacts",
  description: "Reacts with an emoji that does not exist.",
  setup(bot) {
    bot.command("like", { description: "React" }, (ctx) => ctx.react("no_such_emoji"));
  },
});

let t: TestBot | undefined;
afterEach(async () => {
  await t?.close();
});

it("logs a refused ctx.react as one line with plugin, handler, action and code, and says so in the reply", async () => {
  const log = captureLog();
  t = await createTestBot({ plugins: [reacts], logger: log.logger });
  await t.send("!like");
  const reply = await t.reply();
  expect(reply.content).toMatch(
    /^Sorry, something went wrong.*\(the server refused POST \/messages\/\{message_id\}\/reactions: .*\(BAD_REQUEST\)\)$/s,
  );
  const line = log.lines().find((l) => l.level === 50)!;
  expect(line).toMatchObject({ plugin: "reacts", handler: "command like", code: "BAD_REQUEST" });
  expect(line.action).toMatch(/reactions/);
  expect(line.msg).toMatch(
    /^plugin "reacts" command like: the server refused POST .*reactions: BAD_REQUEST: /,
  );
  expect(line.err).toBeUndefined();
  expect(JSON.stringify(line)).not.toContain("    at ");
});
