// Which config keys a SIGHUP reload applies, and which it names as needing a restart.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { keysNeedingRestart } from "../../src/cli/reload.js";

const config = (lines: string[]) => loadConfig(lines.join("\n"), {}, "bot.config.yaml");

describe("keysNeedingRestart", () => {
  const base = ["channels: [general]", "plugins: [ping]", "logging: { level: info, format: json }"];

  it("names nothing when only plugins, schedules and the log level changed", () => {
    const next = config([
      "channels: [general]",
      "plugins: [ping, help]",
      "logging: { level: debug, format: json }",
      "schedules: [{ cron: '0 9 * * *', channel: general, topic: t, message: m }]",
    ]);
    expect(keysNeedingRestart(config(base), next)).toEqual([]);
  });

  it("names each other key that changed, logging.format and keys added or removed included", () => {
    const next = config([
      "channels: [general, ops]",
      "plugins: [ping]",
      "logging: { level: info, format: pretty }",
      "concurrency: 3",
      "prefix: '?'",
    ]);
    expect(keysNeedingRestart(config(base), next)).toEqual([
      "channels",
      "concurrency",
      "logging.format",
      "prefix",
    ]);
  });
});
