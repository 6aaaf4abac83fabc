// Plugins under Zulip's own bots' names (virtual_fs, game_handler_bot): accepted by definePlugin, loaded from config, storing, logging and counted in metrics.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";
import { loadConfig } from "../../src/config/load.js";
import { resolvePlugins } from "../../src/config/plugins.js";
import { checkPluginName } from "../../src/bot/plugin.js";
import { parsePrometheus } from "../helpers/prometheus.js";

const fixtures = fileURLToPath(new URL("../fixtures/config/", import.meta.url));
const noop = () => {};

describe("plugin names", () => {
  it("accepts underscores (the upstream bots' names) and refuses what is unsafe somewhere", () => {
    for (const name of ["virtual_fs", "game_handler_bot", "stand-up", "a1_b-2"])
      expect(definePlugin({ name, setup: noop }).name).toBe(name);
    for (const name of ["Virtual_fs", "_fs", "1fs", "fs.v2", "a b", "a:b", 'a"b', "a/b", ""])
      expect(() => checkPluginName(name), name).toThrow(/underscores/);
  });

  describe("virtual_fs loaded from bot.config.yaml", () => {
    let t: TestBot;
    beforeAll(async () => {
      const file = `${fixtures}bot.config.yaml`;
      const config = loadConfig('plugins:\n  - ./plugins/virtual_fs: { root: "/home/" }\n', {
        ZULIP_SITE: "https://chat.example.com",
        ZULIP_EMAIL: "bot@example.com",
        ZULIP_API_KEY: "key-0123456789",
      });
      const plugins = await resolvePlugins(config, file);
      expect(plugins.map((p) => p.plugin.name)).toEqual(["virtual_fs"]);
      t = await createTestBot({ plugins, now: "2026-03-02T09:30:00Z" });
    });
    afterAll(() => t?.close());

    it("answers, stores in its own namespace and runs its cron job", async () => {
      await t.dialog([
        ["!write notes.txt buy milk", "wrote notes.txt"],
        ["!read notes.txt", "buy milk"],
        ["!read other.txt", "no such file"],
      ]);
      await t.clock.advance("1h");
      expect(await t.bot.storage.namespace("virtual_fs").get("/home/notes.txt")).toBe("buy milk");
      // Its log lines carry its name (here the receiver's warning about its open route).
      expect(t.errors()).toEqual([
        'webhook route /virtual_fs/touch (plugin "virtual_fs") has no authentication; anyone who can reach it can call it',
      ]);
    });

    it("reports metrics labelled with its name", async () => {
      const hook = await fetch(`${t.bot.webhookUrl}/virtual_fs/touch`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(hook.status).toBe(200);
      const res = await fetch(`${t.bot.webhookUrl}/metrics`);
      const samples = [...parsePrometheus(await res.text()).values()].flatMap((f) => f.samples);
      expect(samples).toContainEqual(
        expect.objectContaining({
          name: "topicbot_cron_runs_total",
          labels: { job: "virtual_fs: 0 * * * *", outcome: "ok" },
          value: 1,
        }),
      );
      expect(samples).toContainEqual(
        expect.objectContaining({
          name: "topicbot_webhook_requests_total",
          labels: { route: "/virtual_fs/touch", status: "200" },
          value: 1,
        }),
      );
    });
  });
});
