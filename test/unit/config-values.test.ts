// loadConfig: a config's values come through the schema, defaults filled in, and a wrong value names its key and file.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";

describe("loadConfig", () => {
  it("reads the values through the schema, defaults filled in", () => {
    const config = loadConfig(
      [
        "server:",
        "  site: https://chat.example.com",
        "  email: bot@example.com",
        "  apiKey: abcdefgh",
        "logging: { level: info, format: json }",
        "plugins: [ping]",
        "schedules: []",
        "",
      ].join("\n"),
      {},
      "bot.config.yaml",
    );
    expect(config.server?.site).toBe("https://chat.example.com");
    expect(config.prefix).toBe("!");
  });

  it("still names the key and the file when a value is wrong", () => {
    expect(() =>
      loadConfig("prefix: 3\nlogging: { level: loud }\n", {}, "bot.config.yaml"),
    ).toThrow(/bot\.config\.yaml:2:\d+: logging\.level: Invalid option/);
  });
});
