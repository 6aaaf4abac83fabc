// Property tests of the config loader: any text or tree gives a config or a ConfigError naming file and key.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { botConfig, ConfigError, loadConfig, type BotConfig } from "../../src/config/index.js";
import { keyPath } from "../../src/config/errors.js";

const RUNS = { numRuns: 200 };
const FILE = "prop/bot.config.yaml";

/** Runs the loader; fails the property on anything but a config or a ConfigError for our file. */
function load(
  text: string,
  env: Record<string, string> = {},
  readFile?: (path: string) => string,
): BotConfig | ConfigError {
  try {
    const config = loadConfig(text, env, FILE, { readFile });
    // What comes out passed the schema: it must still read as a valid config.
    expect(botConfig.safeParse({ ...config, server: undefined }).success).toBe(true);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expect(error.message.startsWith(error.file)).toBe(true);
    expect(typeof error.key).toBe("string");
    expect(error.problem.length).toBeGreaterThan(0);
    return error;
  }
}

/** YAML's special characters and the config's own words, glued at random. */
const yamlish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "\n",
        "  ",
        "- ",
        ": ",
        ":",
        "? ",
        "#",
        "&a ",
        "*a",
        "<<: *a",
        "!!str ",
        "!!binary ",
        "!custom ",
        "{",
        "}",
        "[",
        "]",
        ",",
        '"',
        "'",
        "|",
        ">-",
        "---\n",
        "...\n",
        "%YAML 1.2\n",
        "${",
        "}",
        "${HOME}",
        "${MISSING}",
        "${X:-fallback}",
        "$${LITERAL}",
        "server",
        "site",
        "email",
        "apiKey",
        "zuliprc",
        "prefix",
        "plugins",
        "storage",
        "type",
        "file",
        "memory",
        "path",
        "logging",
        "level",
        "rateLimit",
        "commands",
        "perSeconds",
        "timezone",
        "channels",
        "__proto__",
        "constructor",
        "https://chat.example.com",
        "null",
        "~",
        "true",
        "1e999",
        "-.inf",
        "0x1F",
      ),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(""));

/** Trees whose keys are mostly the config's own, with values of every kind. */
const key = fc.oneof(
  fc.constantFrom(
    "server",
    "site",
    "email",
    "apiKey",
    "zuliprc",
    "prefix",
    "respondTo",
    "channels",
    "allPublicChannels",
    "concurrency",
    "timezone",
    "rateLimit",
    "commands",
    "perSeconds",
    "errorReply",
    "logging",
    "level",
    "format",
    "storage",
    "type",
    "path",
    "flushDelayMs",
    "sandbox",
    "port",
    "plugins",
    "__proto__",
  ),
  fc.string({ maxLength: 6 }),
);
const leaf = fc.oneof(
  fc.constantFrom("memory", "file", "json", "debug", "all", "${ZULIP_API_KEY}", "${NOPE}", "UTC"),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("tree"), { maxLength: 4 }),
    fc.dictionary(key, tie("tree"), { maxKeys: 5 }),
  ),
}));
const env = fc.dictionary(
  fc.constantFrom("ZULIP_SITE", "ZULIP_EMAIL", "ZULIP_API_KEY", "HOME", "X", "NOPE"),
  fc.string({ maxLength: 20 }),
);

describe("loadConfig on random input", () => {
  it("any text: a config or a ConfigError, never a crash", () => {
    fc.assert(
      fc.property(
        fc.oneof(yamlish, fc.string({ unit: "binary", maxLength: 200 })),
        env,
        (text, e) => {
          load(text, e);
        },
      ),
      RUNS,
    );
  });

  it("any tree written as YAML: a config or a ConfigError naming the key", () => {
    fc.assert(
      fc.property(fc.dictionary(key, tree, { maxKeys: 6 }), env, (t, e) => {
        const outcome = load(stringify(t), e, () => "[api]\nemail=a@b.c\nkey=k\nsite=http://x");
        if (outcome instanceof ConfigError && outcome.key !== "" && outcome.file === FILE) {
          // The key named is one of the tree's own (its first segment is a top-level key), or
          // `server` when the server comes from the ZULIP_* variables.
          const tops = [...Object.keys(t), ...(Object.keys(e).length > 0 ? ["server"] : [])];
          const named = tops.some((top) => {
            const head = keyPath([top]);
            return [head, `${head}.`, `${head}[`].some((p) => outcome.key.startsWith(p));
          });
          expect(named, `${outcome.key} names none of ${JSON.stringify(tops)}`).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("never echoes an API key or a secret, wherever it stands", () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{12,24}$/).map((s) => `SECRET${s}`);
    fc.assert(
      fc.property(tree, secret, fc.boolean(), (t, s, inEnv) => {
        const server = { site: t, email: t, apiKey: inEnv ? "${ZULIP_API_KEY}" : s };
        const outcome = load(
          stringify({ server, storage: t, plugins: [{ p: { secret: s, token: s } }] }),
          { ZULIP_API_KEY: s },
        );
        if (outcome instanceof ConfigError) expect(outcome.message).not.toContain(s);
      }),
      RUNS,
    );
  });

  it("found by the property above: a secret variable put in the wrong key is not echoed", () => {
    const key = "SECRETa0Aa00Aa0aaa";
    const error = load("server: { site: '${ZULIP_API_KEY}', email: a, apiKey: b }", {
      ZULIP_API_KEY: key,
    });
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe("server.site");
    expect((error as ConfigError).message).not.toContain(key);
  });

  it("a zuliprc that is missing, unreadable or garbage gives a ConfigError naming the file", () => {
    const reader = fc.oneof(
      fc.constant((): string => {
        throw Object.assign(new Error("nope"), { code: "ENOENT" });
      }),
      fc.constant((): string => {
        throw Object.assign(new Error("nope"), { code: "EACCES" });
      }),
      fc.string({ unit: "binary", maxLength: 120 }).map((text) => () => text),
    );
    fc.assert(
      fc.property(reader, fc.string({ minLength: 1, maxLength: 10 }), (readFile, rc) => {
        load(stringify({ server: { zuliprc: rc } }), {}, readFile);
      }),
      RUNS,
    );
  });
});
