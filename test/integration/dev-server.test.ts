// `bot dev` against a configured server (a sandbox playing one), as the developer's own account.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/client/client.js";
import { ConfigError } from "../../src/config/errors.js";
import { runDevSession, type DevOptions } from "../../src/dev/session.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

/** A plain-ESM plugin (no build step): `!like` reacts with `emoji`, `!hi` answers `greeting`, `!tell` streams. */
const likePlugin = (emoji: string, greeting: string): string => `
export default {
  name: "like",
  description: "Reacts and greets.",
  setup(bot) {
    bot.command("like", { description: "React" }, (ctx) => ctx.react(${JSON.stringify(emoji)}));
    bot.command("hi", { description: "Greet" }, (ctx) => ctx.reply(${JSON.stringify(greeting)}));
    bot.command("tell", { description: "Stream" }, (ctx) =>
      ctx.stream((async function* () {
        yield "draft";
        await new Promise((resolve) => setTimeout(resolve, 100));
        yield " done";
      })(), { minEditIntervalMs: 20 }));
  },
};
`;

/** A running session on PassThrough streams: type lines, wait (bounded) for output. */
function drive(options: Omit<DevOptions, "input" | "output">) {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  let seen = 0;
  output.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  const done = runDevSession({ ...options, input, output, env: options.env ?? {} });
  return {
    done,
    type: (line: string) => void input.write(`${line}\n`),
    /** Waits for `pattern` in what was printed since the last match. */
    async expect(pattern: RegExp, timeoutMs = 5_000): Promise<RegExpExecArray> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = pattern.exec(printed.slice(seen));
        if (match) {
          seen += match.index + match[0].length;
          return match;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(
        `bot dev did not print ${pattern} within ${timeoutMs} ms; it printed:\n${printed}`,
      );
    },
    printed: () => printed,
  };
}

describe("bot dev on a configured server", () => {
  let sandbox: Sandbox;
  let dir: string;
  let config: string;
  let miaRc: string;

  beforeEach(async () => {
    sandbox = await startSandbox();
    dir = await mkdtemp(join(tmpdir(), "topicbot-dev-server-"));
    const { bot } = sandbox;
    config = join(dir, "bot.config.yaml");
    await writeFile(
      config,
      `server:\n  site: ${sandbox.url}\n  email: ${bot.email}\n  apiKey: ${bot.apiKey}\nplugins:\n  - ping\n  - ./like.mjs\n`,
    );
    await writeFile(join(dir, "like.mjs"), likePlugin("thumbs_up", "Hello"));
    const mia = sandbox.user("mia");
    miaRc = join(dir, "mia.zuliprc");
    await writeFile(miaRc, `[api]\nemail=${mia.email}\nkey=${mia.apiKey}\nsite=${sandbox.url}\n`);
  });
  afterEach(async () => {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs the bot on the server; the developer chats as themself and sees the bot, others and reactions", async () => {
    const dev = drive({ config, me: miaRc, debounceMs: 20 });
    const site = sandbox.url.replace(/[.]/g, "\\.");
    await dev.expect(
      new RegExp(
        `topicbot dev: chatting on the server ${site}; the bot runs ping, like\\.\\nYou are Mia Member in #general > dev\\.`,
      ),
    );

    dev.type("!ping");
    await dev.expect(/\[#general > dev\] Topic Bot \(ping › command ping\): pong/);
    // The bot ran against the configured server: its answer is in that realm.
    const pong = sandbox.realm.messages.find((m) => m.content === "pong");
    expect(pong?.senderId).toBe(sandbox.bot.userId);
    dev.type("!like");
    await dev.expect(
      /\[#general > dev\] Topic Bot \(like › command like\): reacted :thumbs_up: on "!like"/,
    );

    // A streamed answer: its edits arrive on the developer's queue and are shown.
    dev.type("!tell");
    await dev.expect(/Topic Bot \(like › command tell\): draft\n/);
    await dev.expect(/Topic Bot \(like › command tell, edited\): draft done\n/);

    // Someone else speaks, in the channel and to the developer directly.
    const adam = sandbox.user("adam");
    const adamClient = createClient({ site: sandbox.url, email: adam.email, apiKey: adam.apiKey });
    await adamClient.messages.send({
      type: "channel",
      to: "general",
      topic: "dev",
      content: "morning all",
    });
    await dev.expect(/\[#general > dev\] Adam Admin: morning all/);
    // Anyone on the server can write escape sequences: they are shown, not sent to the terminal.
    await adamClient.messages.send({
      type: "channel",
      to: "general",
      topic: "dev",
      content: "look \u001b]52;c;ZXZpbA==\u0007\u001b[2J here",
    });
    await dev.expect(/Adam Admin: look \\x1b\]52;c;ZXZpbA==\\x07\\x1b\[2J here/);
    expect(dev.printed()).not.toContain("\u001b");
    await adamClient.messages.send({
      type: "direct",
      to: [sandbox.user("mia").userId],
      content: "psst",
    });
    const dm = await dev.expect(/\[DM ([^\]]*)\] Adam Admin: psst/);
    expect(dm[1]!.split(", ").sort()).toEqual(["Adam Admin", "Mia Member"]);
    await adamClient.close();

    // One human identity: /as is refused, and the session goes on.
    dev.type("/as adam");
    await dev.expect(
      /✗ \/as adam: on a real server you speak only as yourself \(Mia Member, from --me\)/,
    );

    // A direct message to the bot, by `@bot`.
    dev.type("@bot");
    dev.type("!hi");
    await dev.expect(/\[DM [^\]]*Topic Bot[^\]]*\] Topic Bot \(like › command hi\): Hello/);
    dev.type("@nobody");
    await dev.expect(/✗ no user "nobody"; try /);

    // No channel is created on demand: the server's error, then the chat goes on.
    dev.type("#nowhere > x");
    dev.type("anyone?");
    await dev.expect(
      /✗ POST \/messages failed with HTTP 400 STREAM_DOES_NOT_EXIST: Channel 'nowhere' does not exist/,
    );
    expect(sandbox.realm.channelByName("nowhere")).toBeUndefined();

    // A plugin edit reloads the bot on the same server.
    await writeFile(join(dir, "like.mjs"), likePlugin("tada", "Bonjour"));
    await dev.expect(/↻ reloaded ping, like \(.*like\.mjs changed\)/);
    dev.type("#general > dev");
    dev.type("!hi");
    await dev.expect(/\[#general > dev\] Topic Bot \(like › command hi\): Bonjour/);
    dev.type("!like");
    await dev.expect(/Topic Bot \(like › command like\): reacted :tada: on "!like"/);

    dev.type("/quit");
    expect(await dev.done).toBe(0);
    // What the developer typed is not echoed back.
    expect(dev.printed()).not.toMatch(/Mia Member: (!ping|!like|!hi|anyone\?)/);
    expect(dev.printed()).toMatch(/bye\n$/);
    expect(dev.printed()).not.toContain(sandbox.user("mia").apiKey);
    // Every queue (the bot's and the developer's) was deleted on the way out.
    expect(sandbox.expireQueues()).toEqual([]);
  }, 30_000);

  it("fails before starting anything when a server is configured and neither --me nor --sandbox is given", async () => {
    const dev = drive({ config });
    const error = await dev.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(sandbox.url);
    expect(message).toMatch(/pass --me <zuliprc> .*TOPICBOT_DEV_ZULIPRC.*, or --sandbox/);
    expect(message).not.toContain("\n");
    expect(message).not.toContain(sandbox.bot.apiKey);
    expect(dev.printed()).toBe("");
    expect(sandbox.expireQueues()).toEqual([]);
  });

  it("takes the developer's zuliprc from TOPICBOT_DEV_ZULIPRC", async () => {
    const dev = drive({ config, env: { TOPICBOT_DEV_ZULIPRC: miaRc }, watch: false });
    await dev.expect(/chatting on the server .*\nYou are Mia Member/);
    dev.type("!ping");
    await dev.expect(/Topic Bot \(ping › command ping\): pong/);
    dev.type("/quit");
    expect(await dev.done).toBe(0);
  });

  it("names the culprit for a wrong --me and for options that do not go together", async () => {
    const refused = async (options: Partial<DevOptions>): Promise<string> => {
      const dev = drive({ config, watch: false, ...options });
      const error = await dev.done.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect(dev.printed()).toBe("");
      return (error as Error).message;
    };
    expect(await refused({ me: join(dir, "missing.zuliprc") })).toMatch(
      /missing\.zuliprc: zuliprc file not found \(--me\)/,
    );
    const other = join(dir, "other.zuliprc");
    const mia = sandbox.user("mia");
    await writeFile(other, `[api]\nemail=${mia.email}\nkey=${mia.apiKey}\nsite=chat.example.com\n`);
    const wrongSite = await refused({ me: other });
    expect(wrongSite).toMatch(
      /other\.zuliprc: api\.site: is https:\/\/chat\.example\.com, but the bot's server is http:\/\/127/,
    );
    expect(wrongSite).not.toContain(mia.apiKey);
    expect(await refused({ me: miaRc, sandbox: true })).toMatch(
      /--me and --sandbox exclude each other/,
    );
    expect(await refused({ me: miaRc, as: "adam" })).toMatch(/--as adam plays a sandbox user/);
    const botRc = join(dir, "bot.zuliprc");
    await writeFile(
      botRc,
      `[api]\nemail=${sandbox.bot.email}\nkey=${sandbox.bot.apiKey}\nsite=${sandbox.url}\n`,
    );
    expect(await refused({ me: botRc })).toMatch(
      /bot\.zuliprc: api\.email: is the bot's own account/,
    );
    const badKey = join(dir, "bad.zuliprc");
    await writeFile(badKey, `[api]\nemail=${mia.email}\nkey=wrong-key-123\nsite=${sandbox.url}\n`);
    const dev = drive({ config, me: badKey, watch: false });
    await expect(dev.done).rejects.toThrow(/GET \/users\/me failed with HTTP 401/);
    expect(sandbox.expireQueues()).toEqual([]);
  });

  it("uses the embedded sandbox with --sandbox, leaving the configured server alone", async () => {
    const dev = drive({ config, sandbox: true, watch: false });
    const banner = await dev.expect(/the embedded sandbox is at (http:\/\/127\.0\.0\.1:\d+);/);
    expect(banner[1]).not.toBe(sandbox.url);
    await dev.expect(
      /\(--sandbox: the configured server http:\/\/127\.0\.0\.1:\d+ is left alone\.\)/,
    );
    dev.type("/as adam");
    dev.type("!ping");
    await dev.expect(/\[#general > dev\] Topic Bot \(ping › command ping\): pong/);
    dev.type("/quit");
    expect(await dev.done).toBe(0);
    expect(dev.printed()).not.toContain("✗");
    expect(sandbox.realm.messages).toEqual([]);
  });
});
