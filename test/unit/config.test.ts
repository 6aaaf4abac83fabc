import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.js";

const load = (text: string, env: Record<string, string> = {}) =>
  loadConfig(text, env, "bot.config.yaml");

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies defaults to an empty file", () => {
    const config = load("");
    expect(config).toMatchObject({ prefix: "!", respondTo: "addressed", plugins: [] });
    expect(config.server).toBeUndefined();
  });

  it("reads plugins as names or one-key maps with settings", () => {
    const config = load("plugins:\n  - ping\n  - ./plugins/standup:\n      channel: general\n");
    expect(config.plugins).toEqual(["ping", { "./plugins/standup": { channel: "general" } }]);
  });

  it("interpolates ${VAR} and ${VAR:-default}", () => {
    const config = load(
      "server:\n  site: ${SITE}\n  email: ${EMAIL:-bot@example.com}\n  apiKey: ${KEY}\n",
      { SITE: "https://chat.example.com", KEY: "k3y" },
    );
    expect(config.server).toEqual({
      site: "https://chat.example.com",
      email: "bot@example.com",
      apiKey: "k3y",
    });
  });

  it("names the key of a missing environment variable", () => {
    const error = configError(() => load("server:\n  site: ${SITE}\n  email: a\n  apiKey: b\n"));
    expect(error.file).toBe("bot.config.yaml");
    expect(error.key).toBe("server.site");
    expect(error.message).toMatch(/SITE is not set/);
  });

  it("names the file and the key of a bad value", () => {
    const error = configError(() => load("server:\n  site: not a url\n  email: a\n  apiKey: b\n"));
    expect(error.message).toMatch(/^bot\.config\.yaml:\d+:\d+: server\.site: /);
  });

  it("reports unknown keys by name", () => {
    expect(configError(() => load("prefx: '!'\n")).message).toBe(
      'bot.config.yaml:1:1: prefx: unknown key (did you mean "prefix"?)',
    );
  });

  it("knows the time zone by one spelling: timezone is an unknown key pointing at timeZone", () => {
    expect(configError(() => load("timezone: UTC\n")).message).toBe(
      'bot.config.yaml:1:1: timezone: unknown key (did you mean "timeZone"?)',
    );
    expect(load("timeZone: UTC\n").timeZone).toBe("UTC");
  });

  it("reports YAML syntax errors with the position", () => {
    expect(configError(() => load("plugins: [ping\n")).message).toMatch(
      /^bot\.config\.yaml:1:10: invalid YAML: /,
    );
  });

  it("never puts a secret in the error", () => {
    const error = configError(() =>
      load("server:\n  site: ftp://x\n  email: a\n  apiKey: ${KEY}\n", { KEY: "s3cret-key" }),
    );
    expect(error.message).not.toContain("s3cret-key");
  });
});
