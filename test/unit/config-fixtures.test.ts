import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_RATE_LIMIT } from "../../src/commands/rate-limit.js";
import {
  ConfigError,
  loadConfig,
  loadConfigFile,
  parseZuliprc,
  resolvePlugins,
} from "../../src/config/index.js";

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/config/${name}`, import.meta.url));

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

const KEY = "KEYfromTheEnvironment0123456789a";

describe("config fixtures", () => {
  it("basic: every key is read, with the server from the file", async () => {
    const config = await loadConfigFile(fixture("basic.yaml"), { ZULIP_API_KEY: KEY });
    expect(config).toMatchObject({
      server: {
        site: "https://chat.example.com",
        email: "standup-bot@chat.example.com",
        apiKey: KEY,
      },
      serverSource: fixture("basic.yaml"),
      prefix: "?",
      respondTo: "addressed",
      channels: ["general", "standups"],
      allPublicChannels: false,
      concurrency: 4,
      timeZone: "Europe/Paris",
      rateLimit: { commands: 5, perSeconds: 10 },
      errorReply: "Oops, that did not work.",
      logging: { level: "debug", format: "json" },
      storage: { type: "file", path: "data/bot.json" },
      plugins: ["ping", { "./plugins/greeter": { greeting: "Bonjour" } }],
    });
  });

  it("basic: plugins load with their settings validated and defaulted", async () => {
    const file = fixture("basic.yaml");
    const config = await loadConfigFile(file, { ZULIP_API_KEY: KEY });
    const plugins = await resolvePlugins(config, file);
    expect(plugins.map((p) => p.plugin.name)).toEqual(["ping", "greeter"]);
    expect(plugins[1]!.settings).toEqual({ greeting: "Bonjour", repeat: 1 });
  });

  it("empty: defaults everywhere, no server, memory storage", async () => {
    const config = await loadConfigFile(fixture("empty.yaml"), {});
    expect(config).toEqual({
      sandbox: { port: 0 },
      prefix: "!",
      respondTo: "addressed",
      channels: [],
      allPublicChannels: false,
      handlers: {},
      rateLimit: { commands: 10, perSeconds: 10 },
      logging: {},
      memory: { youngGeneration: "hold" },
      storage: { type: "memory" },
      plugins: [],
      schedules: [],
      webhooks: [],
    });
  });

  it("malformed: a YAML syntax error names the file and the line", async () => {
    const error = await configError(loadConfigFile(fixture("malformed.yaml"), {}));
    expect(error.file).toBe(fixture("malformed.yaml"));
    expect(error.message).toMatch(/malformed\.yaml:2:10: invalid YAML: /);
  });

  it("missing: a file that does not exist is a ConfigError naming it", async () => {
    const error = await configError(loadConfigFile(fixture("missing.yaml"), {}));
    expect(error.message).toBe(`${fixture("missing.yaml")}: file not found`);
  });

  it("evil: an alias bomb is refused, not expanded", async () => {
    const error = await configError(loadConfigFile(fixture("evil.yaml"), {}));
    expect(error.message).toMatch(/evil\.yaml: invalid YAML: .*alias/i);
  });

  it("evil: a __proto__ key is an unknown key and pollutes nothing", async () => {
    const error = await configError(loadConfigFile(fixture("evil-proto.yaml"), {}));
    expect(error.message).toMatch(/evil-proto\.yaml:\d+:\d+: __proto__: unknown key/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("bad plugin settings: the error names the file, the plugin and the key", async () => {
    const file = fixture("bad-plugin-settings.yaml");
    const error = await configError(resolvePlugins(await loadConfigFile(file, {}), file));
    expect(error.file).toBe(file);
    expect(error.plugin).toBe("greeter");
    expect(error.key).toBe('plugins[1]["./plugins/greeter"].repeat');
    expect(error.message).toBe(
      `${file}:5:15: plugins[1]["./plugins/greeter"].repeat: plugin "greeter": Invalid input: expected number, received string (got "many")`,
    );
  });

  it("settings under a plugin that declares no schema are an error, not ignored", async () => {
    const file = fixture("settings-for-schemaless.yaml");
    const error = await configError(resolvePlugins(await loadConfigFile(file, {}), file));
    expect(error.message).toBe(
      `${file}:2:5: plugins[0]: plugin "ping" takes no settings (it declares no config schema), but got "reply"`,
    );
  });

  it("a swapped pair of letters in a plugin name still gets a did-you-mean", async () => {
    const file = fixture("empty.yaml");
    const config = await loadConfigFile(file, {});
    const error = await configError(resolvePlugins({ ...config, plugins: ["pnig"] }, file));
    expect(error.message).toContain(
      'plugin "pnig" not found: no built-in plugin by that name (did you mean "ping"?)',
    );
  });

  it("zuliprc: credentials come from the file, keys in the config win", async () => {
    const config = await loadConfigFile(fixture("zuliprc.yaml"), {});
    expect(config.server).toEqual({
      site: "https://override.example.com",
      email: "zuliprc-bot@chat.example.com",
      apiKey: "ZULIPRCKEYzuliprckey0123456789ab",
    });
    expect(config.serverSource).toBe(fixture("zuliprc"));
  });
});

describe("server resolution", () => {
  const load = (
    text: string,
    env: Record<string, string> = {},
    files: Record<string, string> = {},
  ) =>
    loadConfig(text, env, "/srv/bot/bot.config.yaml", {
      readFile: (path) => {
        if (path in files) return files[path]!;
        throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
      },
    });
  const env = {
    ZULIP_SITE: "https://env.example.com",
    ZULIP_EMAIL: "env-bot@example.com",
    ZULIP_API_KEY: KEY,
  };

  it("uses ZULIP_SITE, ZULIP_EMAIL and ZULIP_API_KEY when there is no server section", () => {
    const config = load("prefix: '!'\n", env);
    expect(config.server).toEqual({
      site: "https://env.example.com",
      email: "env-bot@example.com",
      apiKey: KEY,
    });
    expect(config.serverSource).toMatch(/^environment/);
  });

  it("prefers the server section to the environment", () => {
    const config = load(
      "server:\n  site: https://file.example.com\n  email: f@x\n  apiKey: k\n",
      env,
    );
    expect(config.server?.site).toBe("https://file.example.com");
  });

  it("names the variables missing when only some are set", () => {
    expect(() => load("", { ZULIP_EMAIL: "a@b" })).toThrow(
      "/srv/bot/bot.config.yaml: server: no server section, and the environment sets ZULIP_EMAIL but not ZULIP_SITE, ZULIP_API_KEY",
    );
  });

  it("says a required key is missing rather than that undefined is the wrong type", () => {
    expect(() => load("storage: { type: file }\n", env)).toThrow(
      /bot\.config\.yaml:1:\d+: storage\.path: required \(expected string\)$/,
    );
  });

  it("names the variable holding a bad value", () => {
    expect(() => load("", { ...env, ZULIP_SITE: "chat.example.com" })).toThrow(
      /bot\.config\.yaml: server\.site: ZULIP_SITE: expected an http\(s\) URL/,
    );
  });

  it("reads a zuliprc path relative to the config file, naming it when missing", () => {
    const rc = "[api]\nemail=rc@example.com\nkey=rckey\nsite=https://rc.example.com\n";
    expect(
      load("server:\n  zuliprc: conf/zuliprc\n", {}, { "/srv/bot/conf/zuliprc": rc }).server,
    ).toEqual({ site: "https://rc.example.com", email: "rc@example.com", apiKey: "rckey" });
    expect(() => load("server:\n  zuliprc: nope\n")).toThrow(
      "/srv/bot/bot.config.yaml: server.zuliprc: zuliprc file /srv/bot/nope not found",
    );
  });

  it("names the zuliprc file and its key when the file lacks one", () => {
    const rc = "[api]\nemail=rc@example.com\nsite=rc.example.com\n";
    let error: unknown;
    try {
      load("server:\n  zuliprc: /etc/zuliprc\n", {}, { "/etc/zuliprc": rc });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe("/etc/zuliprc");
    expect((error as ConfigError).key).toBe("api.key");
  });

  it("asks for all three settings, or a zuliprc", () => {
    expect(() => load("server:\n  site: https://x.example.com\n")).toThrow(
      "server.email: missing (give site, email and apiKey, or zuliprc: path/to/zuliprc)",
    );
  });
});

describe("parseZuliprc", () => {
  it("reads [api], completes the site as Zulip's bindings do, ignores other sections", () => {
    const text =
      "; comment\n[other]\nkey=nope\n\n[api]\r\nemail = bot@chat.example.com\r\nKEY=abc123\r\nsite=chat.example.com/api/\r\n";
    expect(parseZuliprc(text, "zuliprc")).toEqual({
      email: "bot@chat.example.com",
      apiKey: "abc123",
      site: "https://chat.example.com",
    });
  });

  it("names the file when there is no [api] section", () => {
    expect(() => parseZuliprc("[server]\nsite=x\n", "/home/me/.zuliprc")).toThrow(
      "/home/me/.zuliprc: api: no [api] section",
    );
  });

  it("never puts the key in an error", () => {
    try {
      parseZuliprc("[api]\nkey=SECRETsecret\nsite=x\n", "zuliprc");
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe("zuliprc: api.email: missing or empty");
    }
  });
});

describe("new keys are validated, naming file and key", () => {
  const load = (text: string) => () => loadConfig(text, {}, "bot.config.yaml");
  it.each([
    [
      "timeZone: Mars/Olympus\n",
      /^bot\.config\.yaml:\d+:\d+: timeZone: unknown time zone "Mars\/Olympus"/,
    ],
    ["storage: { type: disk }\n", /^bot\.config\.yaml:\d+:\d+: storage\.type: /],
    ["storage: { type: file }\n", /^bot\.config\.yaml:\d+:\d+: storage\.path: /],
    ["rateLimit: { commands: 0, perSeconds: 10 }\n", /^bot\.config\.yaml:\d+:\d+: rateLimit/],
    ["concurrency: 0\n", /^bot\.config\.yaml:\d+:\d+: concurrency: .*\(got 0\)/],
    ["channels: general\n", /^bot\.config\.yaml:\d+:\d+: channels: .*\(got "general"\)/],
    ["allPublicChannels: yes please\n", /^bot\.config\.yaml:\d+:\d+: allPublicChannels: /],
    ["errorReply: true\n", /^bot\.config\.yaml:\d+:\d+: errorReply: /],
    [
      "respondTo: everything\n",
      /^bot\.config\.yaml:\d+:\d+: respondTo: .*"addressed"\|"mentions"\|"all" \(got "everything"\)/,
    ],
    ["logging: { level: loud }\n", /^bot\.config\.yaml:\d+:\d+: logging\.level: /],
  ])("%s", (text, message) => {
    expect(load(text)).toThrow(message);
  });

  it("accepts rateLimit: false and errorReply: false", () => {
    expect(loadConfig("rateLimit: false\nerrorReply: false\n", {})).toMatchObject({
      rateLimit: false,
      errorReply: false,
    });
  });

  it("never echoes a secret value, even a badly typed one", () => {
    expect(
      load("server:\n  site: https://x.example.com\n  email: a\n  apiKey: 1234567890\n"),
    ).toThrow(
      /^bot\.config\.yaml:\d+:\d+: server\.apiKey: Invalid input: expected string, received number$/,
    );
  });
});

describe("the rate limit default", () => {
  it("is the same in bot.config.yaml and createBot: DEFAULT_RATE_LIMIT, 10 per 10 s", () => {
    expect(loadConfig("plugins: []\n", {}).rateLimit).toEqual(DEFAULT_RATE_LIMIT);
    expect(DEFAULT_RATE_LIMIT).toEqual({ commands: 10, perSeconds: 10 });
  });
});
