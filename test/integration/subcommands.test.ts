import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { arg, definePlugin, subcommand, type ChatUser } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";

const items: string[] = [];

const todo = definePlugin({
  name: "todo",
  description: "A shared to-do list.",
  setup(bot) {
    bot.command("todo", {
      description: "The to-do list",
      subcommands: {
        add: subcommand(
          {
            description: "Add an item",
            args: { item: arg.text({ max: 50 }) },
            options: { for: arg.user().optional() },
          },
          async (ctx) => {
            expectTypeOf(ctx.command.args.item).toEqualTypeOf<string>();
            expectTypeOf(ctx.command.options.for).toEqualTypeOf<ChatUser | undefined>();
            // @ts-expect-error a misspelt argument does not compile
            void ctx.command.args.itme;
            items.push(ctx.command.args.item);
            await ctx.reply(`Added #${items.length}: ${ctx.command.args.item}`);
          },
        ),
        list: subcommand({ description: "List the items", aliases: ["ls"] }, async (ctx) => {
          // @ts-expect-error a subcommand without args has none to read
          void ctx.command.args.item;
          await ctx.reply(items.map((x, i) => `${i + 1}. ${x}`).join("\n") || "Nothing to do.");
        }),
        done: subcommand(
          { description: "Tick an item off", args: { n: arg.integer({ min: 1 }) } },
          async (ctx) => {
            expectTypeOf(ctx.command.args.n).toEqualTypeOf<number>();
            expectTypeOf(ctx.command.subcommand).toEqualTypeOf<string>();
            const [gone] = items.splice(ctx.command.args.n - 1, 1);
            await ctx.reply(gone === undefined ? "No such item." : `Done: ${gone}`);
          },
        ),
      },
    });
  },
});

describe("subcommands", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({ plugins: [todo] });
  }, 60_000);
  afterAll(() => t.close());

  it("runs each subcommand with its own typed arguments", async () => {
    await t.dialog([
      ["!todo add buy milk", "Added #1: buy milk"],
      ["!todo ADD call mom", "Added #2: call mom"],
      ["!todo ls", "1. buy milk\n2. call mom"],
      ["!todo done 1", "Done: buy milk"],
      ["!todo list", "1. call mom"],
    ]);
  });

  it("answers a wrong subcommand with did-you-mean and the parent's usage", async () => {
    await t.send("!todo dne 1");
    const reply = await t.expectReply(/has no subcommand/);
    expect(reply.content).toBe(
      [
        "`!todo` has no subcommand `dne`. Did you mean `!todo done`?",
        "Usage: `!todo <add|list|done>`",
        "- `!todo add <item...> [--for <user>]`: Add an item",
        "- `!todo list`: List the items",
        "- `!todo done <n:integer>`: Tick an item off",
      ].join("\n"),
    );
    await t.send("!todo");
    expect((await t.expectReply(/needs a subcommand/)).content).toContain(
      "Usage: `!todo <add|list|done>`",
    );
  });

  it("gives each subcommand its own usage reply, bounds included", async () => {
    await t.send("!todo done 0");
    expect((await t.expectReply(/^Usage/)).content).toBe(
      "Usage: `!todo done <n:integer>`\n<n>: `0` is less than 1, the least I accept. Say `!help todo done` for more.",
    );
    await t.send(`!todo add ${"x".repeat(51)}`);
    expect((await t.expectReply(/^Usage/)).content).toContain(
      "<item>: the text is 51 characters long; at most 50",
    );
  });

  it("lists subcommands in help, and explains one with help <command> <subcommand>", async () => {
    await t.send("!help");
    const index = (await t.expectReply(/Commands/)).content;
    expect(index).toContain("- `!todo <add|list|done>`: The to-do list");
    expect(index).toContain("  - `!todo done <n:integer>`: Tick an item off");
    await t.send("!help todo");
    expect((await t.expectReply(/Subcommands/)).content).toContain(
      "- `!todo list`: List the items",
    );
    await t.send("!help todo list");
    expect((await t.expectReply(/List the items/)).content).toBe(
      "`!todo list`\nList the items\nAlso: `!todo ls`",
    );
    await t.send("!help todo lst");
    expect((await t.expectReply(/no subcommand/)).content).toContain("Did you mean `!todo list`");
  });
});
