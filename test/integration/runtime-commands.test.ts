import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { createTestBot, type TestBot } from "topicbot/testing";
import { arg, createLogger, definePlugin, type CapabilityError } from "topicbot";
import planner from "../../examples/planner/index.js";

// Saturday 1 March 2025, 12:00 UTC.
const NOW = Date.parse("2025-03-01T12:00:00Z");

const lines: Record<string, unknown>[] = [];
const logger = createLogger({
  level: "info",
  format: "json",
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  }),
});

/** Every reply to what was said so far, once the bot has finished with it (a long reply comes in parts). */
async function allReplies(t: TestBot): Promise<string[]> {
  await t.settle();
  return t.drain().map((m) => m.content);
}

const extras = definePlugin({
  name: "extras",
  description: "Test helpers",
  setup(bot) {
    bot.command("boom", { description: "Always fails" }, () => {
      throw new Error("kaboom");
    });
    bot.command("long", { description: "A long answer" }, (ctx) =>
      ctx.reply(Array.from({ length: 12 }, (_, i) => `line ${i + 1} ${"x".repeat(20)}`).join("\n")),
    );
    bot.command("wide", { description: "One very long line" }, (ctx) =>
      ctx.reply(`${"word ".repeat(60)}end`),
    );
    bot.command(
      "whose",
      { description: "Names the plugin of a command", args: { name: arg.string() } },
      (ctx) => {
        const wanted = ctx.command.args.name;
        const found = bot.commands().find((c) => c.name === wanted || c.aliases?.includes(wanted));
        return ctx.reply(found ? `${found.plugin}: ${found.usage}` : `no command ${wanted}`);
      },
    );
  },
});

describe("typed commands, help, roles, errors and dialogs over the sandbox", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({
      plugins: [{ plugin: planner, settings: { askTimeoutMs: 2_000 } }, extras],
      config: { now: () => NOW, timeZone: "Europe/Paris" },
      sandbox: { settings: { maxMessageLength: 200 } },
      logger,
    });
    // Mia's profile has no time zone, so the configured one applies; Adam lives in New York.
    t.sandbox.realm.users.get(t.sandbox.user("mia").userId)!.timezone = "";
    t.sandbox.realm.users.get(t.sandbox.user("adam").userId)!.timezone = "America/New_York";
  });
  afterAll(async () => {
    await t.close();
  });

  it("resolves a user mention and a time in the configured zone, with a flag", async () => {
    await t.send("!remind @**Adam Admin** tomorrow 9:00 --silent bring the cake");
    expect((await t.reply()).content).toBe(
      "(quietly) I'll remind @_**Adam Admin** <time:2025-03-02T08:00:00.000Z>: bring the cake",
    );
    const stored = await t.bot.storage.namespace("planner").get("reminders");
    expect(stored).toEqual([
      {
        userId: t.sandbox.user("adam").userId,
        at: "2025-03-02T08:00:00.000Z",
        what: "bring the cake",
      },
    ]);
  });

  it("reads times in the sender's profile zone, and takes `me` and the `@**Name|id**` form", async () => {
    await t.send("!rm me in 10 minutes tea", { as: "adam" });
    expect((await t.reply()).content).toBe("I'll remind you <time:2025-03-01T12:10:00.000Z>: tea");
    const mia = t.sandbox.user("mia");
    await t.send(`!remind @**Mia Member|${mia.userId}** tomorrow 9:00 call`, { as: "adam" });
    // 9:00 in New York is 14:00 UTC.
    expect((await t.reply()).content).toBe(
      "I'll remind @_**Mia Member** <time:2025-03-02T14:00:00.000Z>: call",
    );
  });

  it("takes a duration, a topic link and a channel", async () => {
    await t.send("!snooze 2h 30m");
    expect((await t.reply()).content).toBe("Snoozed for 2h30m.");

    await t.send("!crosspost #**sandbox>release plan** build is green", { topic: "cp" });
    const posted = await t.reply();
    expect(posted).toMatchObject({
      channel: "sandbox",
      topic: "release plan",
      content: "Mia Member says: build is green",
    });
    expect((await t.reply()).content).toBe("Posted to #**sandbox>release plan**.");

    await t.send("!announce #**sandbox** Lunch is served", { as: "max" });
    expect(await t.reply()).toMatchObject({
      channel: "sandbox",
      topic: "announcements",
      content: "Lunch is served",
    });
    expect((await t.reply()).content).toBe("Announced in #**sandbox**.");
  });

  it("applies zod schemas and their defaults", async () => {
    await t.send("!roll");
    expect((await t.reply()).content).toMatch(/^d6: [1-6]$/);
    await t.send("!roll 20");
    expect((await t.reply()).content).toMatch(/^d20: \d+$/);
  });

  it("answers a bad invocation with the usage line and the problem", async () => {
    await t.send("!remind @**Nobody Here** tomorrow x");
    expect((await t.reply()).content).toBe(
      "Usage: `!remind <who:user> <when:time> <what...> [--silent]`\n" +
        // The name is the sender's text: shown, but inert (it could have been @**all**).
        "<who>: I don't know a user @\u200b**Nobody Here**. Say `!help remind` for more.",
    );
    await t.send("!remind me someday x");
    expect((await t.reply()).content).toMatch(
      /<when>: `someday` is not a time; try `in 10 minutes`/,
    );
    await t.send("!snooze forever");
    expect((await t.reply()).content).toMatch(
      /^Usage: `!snooze <for:duration>`\n<for>: `forever` is not a duration/,
    );
    await t.send("!announce #**nowhere** hello", { as: "max" });
    expect((await t.reply()).content).toMatch(/<channel>: I don't know a channel #\*\*nowhere\*\*/);
    await t.send("!crosspost #**nowhere>plans** hello");
    expect((await t.reply()).content).toMatch(/I don't know a channel #\*\*nowhere\*\*/);
    await t.send("!roll 1");
    expect((await t.reply()).content).toMatch(
      /^Usage: `!roll \[sides:number\]`\n<sides>: Too small/,
    );
    await t.send("!crosspost #**general** hi");
    expect((await t.reply()).content).toMatch(/<where>: #\*\*general\*\* is not a topic link/);
    await t.send("!remind me now x --loud");
    // Options end where the rest of the line starts, so --loud is part of the text here.
    expect((await t.reply()).content).toContain(": x --loud");
    await t.send("!remind --loud me now x");
    expect((await t.reply()).content).toMatch(/Unknown option `--loud`/);
  });

  it("suggests close commands for an unknown one", async () => {
    await t.send("!remidn me now x");
    expect((await t.reply()).content).toBe(
      "I don't know the command `remidn`. Did you mean `!remind`? `!help` lists what I can do.",
    );
    await t.dm("deploy now");
    expect((await t.reply()).content).toBe(
      "I don't know the command `deploy`. `!help` lists what I can do.",
    );
  });

  it("lets a plugin list every plugin's commands, the built-in help included", async () => {
    await t.send("!whose rm", { topic: "whose" });
    await t.expectReply("planner: remind <who:user> <when:time> <what...> [--silent]");
    await t.send("!whose help", { topic: "whose" });
    await t.expectReply("builtin: help [command] [subcommand]");
    await t.send("!whose nothing", { topic: "whose" });
    await t.expectReply("no command nothing");
  });

  it("lists every plugin's commands with help, and explains one with help <command>", async () => {
    await t.send("!help");
    // The list is longer than the sandbox's 200-character limit here, so it comes in parts.
    const index = await allReplies(t);
    expect(index.length).toBeGreaterThan(1);
    const all = index.join("\n");
    for (const c of ["remind", "snooze", "crosspost", "announce", "roll", "signup", "boom", "help"])
      expect(all).toContain(`\`!${c}`);
    expect(all).toContain("**planner**: Reminders, announcements and a small sign-up dialog.");
    expect(all).toContain(
      "- `!snooze <for:duration>`: Stop reminders in this conversation for a while",
    );

    await t.send("!help rm", { topic: "help-one" });
    const parts = await allReplies(t);
    const detail = parts.join("\n");
    expect(detail).toContain("`!remind <who:user> <when:time> <what...> [--silent]`");
    expect(detail).toContain("Also: `!rm`");
    expect(detail).toContain("- `who` (user): who to remind: @**Name** or me");
    expect(detail).toContain("- `!remind me tomorrow 9:00 water the plants`");
  });

  it("refuses a role-restricted command with a clear reply", async () => {
    await t.send("!announce #**general** hello", { as: "mia" });
    expect((await t.reply()).content).toBe(
      "Sorry, `!announce` is only for owners, administrators and moderators.",
    );
    await t.send("!announce #**general** hello", { as: "gus" });
    expect((await t.reply()).content).toMatch(/only for owners, administrators and moderators/);
  });

  it("logs a throwing handler with plugin and message ID, apologises, and goes on", async () => {
    const id = await t.send("!boom", { topic: "errors" });
    expect((await t.reply()).content).toBe(
      "Sorry, something went wrong handling that. The error has been logged.",
    );
    const logged = lines.find((l) => l.plugin === "extras" && l.messageId === id);
    expect(logged).toMatchObject({
      level: 50,
      msg: `plugin "extras" failed handling message ${id}`,
    });
    expect((logged!.err as { message: string }).message).toBe("kaboom");
    await t.send("!roll", { topic: "errors" });
    expect((await t.reply()).content).toMatch(/^d6/);
  });

  it("splits a reply over max_message_length on line boundaries", async () => {
    await t.send("!long", { topic: "split" });
    const first = await t.reply();
    const second = await t.reply();
    expect([...first.content].length).toBeLessThanOrEqual(200);
    expect(first.content.split("\n").every((l) => /^line \d+ x{20}$/.test(l))).toBe(true);
    expect(`${first.content}\n${second.content}`).toBe(
      Array.from({ length: 12 }, (_, i) => `line ${i + 1} ${"x".repeat(20)}`).join("\n"),
    );
    await t.send("!wide", { topic: "split" });
    const a = await t.reply();
    const b = await t.reply();
    expect([...a.content].length).toBeLessThanOrEqual(200);
    expect(a.content.endsWith("word")).toBe(true);
    expect(`${a.content} ${b.content}`).toBe(`${"word ".repeat(60)}end`);
  });

  it("runs a two-step dialog: the answers are not routed, others are served meanwhile", async () => {
    await t.send("!signup", { topic: "dialog" });
    expect((await t.reply()).content).toBe("What's your name?");
    // Someone else's command in the same topic is still handled while Mia's question is open.
    await t.send("!roll", { topic: "dialog", as: "adam" });
    expect((await t.reply()).content).toMatch(/^d6/);
    await t.send("Mia", { topic: "dialog" });
    expect((await t.reply()).content).toBe("Thanks Mia! Your favourite colour?");
    // An answer that looks like a command is an answer (its text, prefix removed), not a command.
    await t.send("!blue", { topic: "dialog" });
    expect((await t.reply()).content).toBe("Saved: Mia likes blue.");
    await t.send("!profile", { topic: "dialog" });
    expect((await t.reply()).content).toBe("Mia likes blue.");
    // The session is per user and per conversation.
    await t.send("!profile", { topic: "elsewhere" });
    expect((await t.reply()).content).toBe("I don't know you yet; say `signup`.");
  });

  it("gives up on an unanswered question after the timeout", async () => {
    await t.dm("signup", { as: "max" });
    expect((await t.reply()).content).toBe("What's your name?");
    expect((await t.reply({ timeoutMs: 5_000 })).content).toBe("No answer; never mind.");
    await t.dm("profile", { as: "max" });
    expect((await t.reply()).content).toBe("I don't know you yet; say `signup`.");
  });
});

describe("rate limits, setup failures and old servers", () => {
  it("limits commands per user and says so once", async () => {
    const t = await createTestBot({
      plugins: [planner],
      config: { rateLimit: { commands: 2, perSeconds: 60 }, now: () => NOW },
    });
    try {
      await t.send("!roll");
      await t.send("!roll");
      await t.send("!roll");
      await t.send("!roll");
      await t.send("!roll", { as: "adam" });
      expect((await t.reply()).content).toMatch(/^d6/);
      expect((await t.reply()).content).toMatch(/^d6/);
      expect((await t.reply()).content).toBe(
        "You're sending commands faster than I can take them; I'll ignore your commands for 1m.",
      );
      // Mia's fourth command was dropped silently; Adam has his own budget.
      const next = await t.reply();
      expect(next.content).toMatch(/^d6/);
      expect(next.topic).toBe("test");
      expect(t.botMessages()).toHaveLength(4);
    } finally {
      await t.close();
    }
  });

  it("stops start-up naming a plugin that throws in setup", async () => {
    const bad = definePlugin({
      name: "bad",
      setup() {
        throw new Error("no database");
      },
    });
    await expect(createTestBot({ plugins: [bad] })).rejects.toThrow(
      'plugin "bad" failed in setup: no database',
    );
  });

  it("stops start-up naming a plugin whose command spec cannot work", async () => {
    const clash = definePlugin({
      name: "clash",
      setup(bot) {
        bot.command("ping", {}, () => undefined);
        bot.command("pong", { aliases: ["ping"] }, () => undefined);
      },
    });
    await expect(createTestBot({ plugins: [clash] })).rejects.toThrow(
      'plugin "clash" failed in setup: command "ping" of plugin "clash" is already defined by plugin "clash"',
    );
  });

  it("fails an action the server's feature level cannot do with an error naming the level", async () => {
    const reporter = definePlugin({
      name: "reporter",
      setup(bot) {
        bot.command("flag", { description: "Report this message" }, async (ctx) => {
          try {
            await ctx.report("spam");
          } catch (error) {
            await ctx.reply(`${(error as CapabilityError).code}: ${(error as Error).message}`);
          }
        });
      },
    });
    const t = await createTestBot({
      plugins: [reporter],
      sandbox: { settings: { featureLevel: 300 } },
    });
    try {
      await t.send("!flag");
      expect((await t.reply()).content).toBe(
        "UNSUPPORTED_BY_SERVER: report needs server feature level 382 or later (POST /messages/{message_id}/report); this server is at level 300",
      );
    } finally {
      await t.close();
    }
  });

  it("replies in direct messages with type private on servers before feature level 174", async () => {
    const t = await createTestBot({
      plugins: [planner],
      sandbox: { settings: { featureLevel: 150 } },
    });
    try {
      await t.dm("roll", { as: "adam" });
      expect(await t.reply()).toMatchObject({ type: "direct" });
      expect(t.bot.registration?.zulip_feature_level).toBe(150);
    } finally {
      await t.close();
    }
  });
});
