// The config is parsed once per process: without zod's JIT, which would compile a checking function per object schema for that one parse.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../../src/config/load.js";
import { compiledDuring } from "../helpers/fixtures.js";

describe("loadConfig", () => {
  it("validates without compiling zod's JIT checkers (the config is parsed once)", async () => {
    // zod decides once per process whether it may compile code (its first `new Function`): done here.
    expect(z.object({ a: z.string() }).safeParse({ a: "x" }).success).toBe(true);
    let config: ReturnType<typeof loadConfig> | undefined;
    const compiled = await compiledDuring(() => {
      config = loadConfig(
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
    });
    // The checks ran: the values came through the schema, defaults filled in.
    expect(config?.server?.site).toBe("https://chat.example.com");
    expect(config?.prefix).toBe("!");
    expect(compiled).toBe(0);
  });

  it("still names the key and the file when a value is wrong", () => {
    expect(() =>
      loadConfig("prefix: 3\nlogging: { level: loud }\n", {}, "bot.config.yaml"),
    ).toThrow(/bot\.config\.yaml:2:\d+: logging\.level: Invalid option/);
  });
});
