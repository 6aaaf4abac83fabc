import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { parseRecipient, registerSend, runSend, type SendIO } from "../../src/cli/commands/send.js";
import { main } from "../../src/cli/main.js";

describe("bot send against the sandbox", () => {
  let sandbox: Sandbox;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    sandbox = await startSandbox();
    dir = await mkdtemp(join(tmpdir(), "topicbot-send-"));
    env = {
      ZULIP_SITE: sandbox.url,
      ZULIP_EMAIL: sandbox.bot.email,
      ZULIP_API_KEY: sandbox.bot.apiKey,
    };
  });

  afterAll(async () => {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs with captured output; `stdin` is text piped in, or "tty" for an interactive terminal. */
  function io(extra: Partial<SendIO> & { input?: string | "tty" } = {}) {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const { input, ...rest } = extra;
    const stdin =
      input === "tty"
        ? Object.assign(Readable.from([]), { isTTY: true })
        : Readable.from(input === undefined ? [] : [Buffer.from(input)]);
    return {
      stdout,
      stderr,
      io: {
        out: { stdout: (l: string) => stdout.push(l), stderr: (l: string) => stderr.push(l) },
        stdin,
        env,
        defaultConfig: join(dir, "absent.yaml"),
        client: { retry: { maxAttempts: 1 } },
        ...rest,
      } as SendIO,
    };
  }

  const last = () => sandbox.realm.messages.at(-1)!;

  it("posts the message piped on standard input, prints its ID and exits 0", async () => {
    const run = io({ input: "Build #318 passed :check:\n\n" });
    const code = await runSend({ to: "general", topic: "ci" }, run.io);
    expect({ code, stderr: run.stderr }).toEqual({ code: 0, stderr: [] });
    expect(last()).toMatchObject({
      topic: "ci",
      content: "Build #318 passed :check:",
      senderId: sandbox.bot.userId,
    });
    expect(run.stdout).toEqual([String(last().id)]);
  });

  it("posts the argument to a channel given by ID", async () => {
    const general = sandbox.realm.channelByName("general")!;
    const run = io();
    expect(
      await runSend(
        { to: String(general.streamId), topic: "deploys", message: "v2.3.0 is live" },
        run.io,
      ),
    ).toBe(0);
    expect(last()).toMatchObject({
      kind: "stream",
      streamId: general.streamId,
      topic: "deploys",
      content: "v2.3.0 is live",
    });
  });

  it("fails clearly on a channel that does not exist, posting nothing", async () => {
    const before = sandbox.realm.messages.length;
    const run = io({ input: "hello" });
    const code = await runSend({ to: "nope", topic: "ci" }, run.io);
    expect(code).toBe(1);
    expect(run.stderr).toEqual(["error: STREAM_DOES_NOT_EXIST: Channel 'nope' does not exist"]);
    expect(run.stdout).toEqual([]);
    expect(sandbox.realm.messages.length).toBe(before);
  });

  it("sends a direct message to users by email or by ID", async () => {
    const mia = sandbox.user("mia");
    const gus = sandbox.user("gus");
    expect(
      await runSend(
        { to: `${mia.email}, ${gus.email}`, message: "Your report is ready." },
        io().io,
      ),
    ).toBe(0);
    expect(last()).toMatchObject({ kind: "private", content: "Your report is ready." });
    expect(new Set(last().recipients)).toEqual(
      new Set([sandbox.bot.userId, mia.userId, gus.userId]),
    );
    expect(await runSend({ to: String(mia.userId), message: "Just you." }, io().io)).toBe(0);
    expect(new Set(last().recipients)).toEqual(new Set([sandbox.bot.userId, mia.userId]));
  });

  it("reads credentials from a config file, interpolating the environment", async () => {
    const file = join(dir, "bot.config.yaml");
    await writeFile(
      file,
      `server:\n  site: ${sandbox.url}\n  email: ${sandbox.bot.email}\n  apiKey: \${BOT_KEY}\n`,
    );
    const run = io({ env: { BOT_KEY: sandbox.bot.apiKey } });
    expect(
      await runSend({ to: "general", topic: "cfg", message: "from config", config: file }, run.io),
    ).toBe(0);
    expect(last().content).toBe("from config");
    // The default file is used when the environment names no server.
    const fallback = io({ env: { BOT_KEY: sandbox.bot.apiKey }, defaultConfig: file });
    expect(await runSend({ to: "general", topic: "cfg", message: "by default" }, fallback.io)).toBe(
      0,
    );
  });

  it("says which credentials are missing, and a config without a server", async () => {
    const none = io({ env: {} });
    expect(await runSend({ to: "general", topic: "t", message: "x" }, none.io)).toBe(2);
    expect(none.stderr[0]).toMatch(
      /no server credentials: set ZULIP_SITE, ZULIP_EMAIL and ZULIP_API_KEY/,
    );
    const partial = io({ env: { ZULIP_SITE: sandbox.url } });
    expect(await runSend({ to: "general", topic: "t", message: "x" }, partial.io)).toBe(2);
    expect(partial.stderr).toEqual([
      "error: incomplete credentials in the environment: ZULIP_EMAIL, ZULIP_API_KEY not set",
    ]);
    const file = join(dir, "sandbox-only.yaml");
    await writeFile(file, "prefix: '!'\n");
    // With no server section and no ZULIP_* variables, the file has nothing to send with.
    const noServer = io({ env: {} });
    expect(
      await runSend({ to: "general", topic: "t", message: "x", config: file }, noServer.io),
    ).toBe(2);
    expect(noServer.stderr[0]).toBe(
      `error: ${file}: server: bot send needs a server section (site, email, apiKey)`,
    );
  });

  it("exits 1 with the server's code for a wrong API key, without printing the key", async () => {
    // Well-formed (32 letters and digits): a malformed key is "Malformed API key", as on the server.
    const key = "wrongkey9f8e7d6c5b4a1234567890ab";
    const run = io({ env: { ...env, ZULIP_API_KEY: key } });
    expect(await runSend({ to: "general", topic: "t", message: "x" }, run.io)).toBe(1);
    expect(run.stderr).toEqual(["error: INVALID_API_KEY: Invalid API key"]);
  });

  it("exits 3 when the server cannot be reached", async () => {
    const run = io({ env: { ...env, ZULIP_SITE: "http://127.0.0.1:9" } });
    expect(await runSend({ to: "general", topic: "t", message: "x" }, run.io)).toBe(3);
    expect(run.stderr[0]).toMatch(/^error: cannot reach the server: POST \/messages/);
  });

  it("refuses an empty message and a terminal with nothing piped", async () => {
    const empty = io({ input: "  \n" });
    expect(await runSend({ to: "general", topic: "t" }, empty.io)).toBe(2);
    expect(empty.stderr[0]).toMatch(/the message is empty/);
    const tty = io({ input: "tty" });
    expect(await runSend({ to: "general", topic: "t" }, tty.io)).toBe(2);
    expect(tty.stderr[0]).toMatch(
      /no message: give it as an argument or pipe it on standard input/,
    );
  });

  it("uploads --file through the injected upload and appends its link", async () => {
    const file = join(dir, "report.txt");
    await writeFile(file, "all green");
    const uploaded: string[] = [];
    const run = io({
      input: "Nightly report",
      upload: async (_client, path) => {
        uploaded.push(path);
        return { url: "/user_uploads/2/ab/report.txt" };
      },
    });
    expect(await runSend({ to: "general", topic: "reports", file }, run.io)).toBe(0);
    expect(uploaded).toEqual([file]);
    expect(last().content).toBe("Nightly report\n[report.txt](/user_uploads/2/ab/report.txt)");
  });

  it("says so when --file is missing, posting nothing", async () => {
    const before = sandbox.realm.messages.length;
    const missing = io({ input: "x" });
    expect(
      await runSend({ to: "general", topic: "t", file: join(dir, "nope.txt") }, missing.io),
    ).toBe(2);
    expect(missing.stderr[0]).toMatch(/cannot read --file .*nope\.txt: ENOENT/);
    expect(sandbox.realm.messages.length).toBe(before);
  });

  it("uploads --file to the server by default and links it", async () => {
    const file = join(dir, "nightly.txt");
    await writeFile(file, "42 passed, 0 failed");
    const run = io();
    expect(
      await runSend({ to: "general", topic: "reports", file, message: "Nightly" }, run.io),
    ).toBe(0);
    const match = /^Nightly\n\[nightly\.txt\]\((\/user_uploads\/[^)]+)\)$/.exec(last().content);
    expect(match, last().content).not.toBeNull();
    const res = await fetch(`${sandbox.url}${match![1]}`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${sandbox.bot.email}:${sandbox.bot.apiKey}`).toString("base64")}`,
      },
    });
    expect(await res.text()).toBe("42 passed, 0 failed");
  });

  it("registers as a commander subcommand", async () => {
    let exitCode = -1;
    const run = io();
    const program = new Command().exitOverride();
    registerSend(program, run.io, (code) => (exitCode = code));
    await program.parseAsync(
      ["send", "--to", "general", "--topic", "cli", "hello", "from", "argv"],
      {
        from: "user",
      },
    );
    expect(exitCode).toBe(0);
    expect(last()).toMatchObject({ topic: "cli", content: "hello from argv" });
  });
});

describe("parseRecipient", () => {
  it("tells channels from users by --topic", () => {
    expect(parseRecipient("general", "t")).toEqual({ type: "channel", to: "general", topic: "t" });
    expect(parseRecipient("12", "t")).toEqual({ type: "channel", to: 12, topic: "t" });
    expect(parseRecipient("a@x.org,b@x.org", undefined)).toEqual({
      type: "direct",
      to: ["a@x.org", "b@x.org"],
    });
    expect(parseRecipient("7, 9", undefined)).toEqual({ type: "direct", to: [7, 9] });
  });

  it("explains the mistakes", () => {
    expect(() => parseRecipient("general", undefined)).toThrow(
      /neither an email nor a user ID; for a channel message, give --topic/,
    );
    expect(() => parseRecipient("a@x.org", "t")).toThrow(/a direct message takes no --topic/);
    expect(() => parseRecipient("a@x.org,7", undefined)).toThrow(/mixes emails and user IDs/);
    expect(() => parseRecipient("a@x.org,,b@x.org", undefined)).toThrow(/empty entry/);
    expect(() => parseRecipient("general", " ")).toThrow(/--topic is empty/);
  });
});

describe("bot send usage errors", () => {
  it("exit 2 and name the unknown option or the missing --to", async () => {
    const lines: string[] = [];
    const out = { stdout: (l: string) => lines.push(l), stderr: (l: string) => lines.push(l) };
    expect(await main(["send", "--bogus", "x", "--to", "general"], out)).toBe(2);
    expect(lines.join("\n")).toContain("unknown option '--bogus'");
    lines.length = 0;
    expect(await main(["send", "hello"], out)).toBe(2);
    expect(lines.join("\n")).toMatch(/bot send needs --to <recipient>/);
  });

  it("bot --version prints the package's version", async () => {
    const lines: string[] = [];
    const out = { stdout: (l: string) => lines.push(l), stderr: (l: string) => lines.push(l) };
    expect(await main(["--version"], out)).toBe(0);
    expect(lines).toEqual([
      JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version,
    ]);
  });
});
