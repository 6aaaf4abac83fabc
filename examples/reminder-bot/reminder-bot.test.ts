// The reminder bot example as shipped: its config, its plugins, a reminder delivered on time.
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { loadConfigFile } from "topicbot";
import { createTestBot } from "topicbot/testing";
import { resolvePlugins } from "../../src/config/plugins.js";

const file = fileURLToPath(new URL("./bot.config.yaml", import.meta.url));

it("introduces itself and delivers a reminder when the time comes", async () => {
  const config = await loadConfigFile(file, {});
  const t = await createTestBot({
    plugins: await resolvePlugins(config, file),
    now: "2025-03-03T08:00:00Z",
  });
  try {
    await t.dialog([
      ["!help", /^I keep reminders\.[\s\S]*`!remind`/],
      [
        "!remind me tomorrow 9:00 to water the plants",
        "I'll remind you here <time:2025-03-04T09:00:00.000Z>: water the plants",
      ],
    ]);
    // The reminder waits on the server as a scheduled message, not in the bot's memory.
    // Mia's profile says UTC, which wins over the config's Europe/Paris.
    expect(t.scheduled()).toMatchObject([{ at: new Date("2025-03-04T09:00:00Z"), topic: "test" }]);
    await t.clock.set("2025-03-04T09:00:00Z");
    await t.expectReply(/^@\*\*Mia Member\|\d+\*\* Reminder: water the plants$/);
    expect(t.scheduled()).toEqual([]);
  } finally {
    await t.close();
  }
});
