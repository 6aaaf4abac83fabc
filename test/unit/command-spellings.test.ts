// How a command line may be spelt: option words and command names in any case, aliases, spacing.
import { describe, expect, it } from "vitest";
import { compileSpec, resolveInvocation } from "../../src/commands/command.js";
import { arg } from "../../src/commands/types.js";
import type { Directory } from "../../src/context/directory.js";
import type { MessageContext } from "../../src/context/context.js";
import { Router } from "../../src/dispatch/router.js";

const env = { directory: {} as Directory, senderId: 1, now: 0, timeZone: async () => "UTC" };

describe("options", () => {
  const compiled = compileSpec("add", {
    args: { a: arg.number(), b: arg.number() },
    options: { note: arg.string().optional(), dryRun: arg.flag() },
  });
  const expected = { args: { a: 1, b: 2 }, options: { note: "w", dryRun: true } };

  it("are found as declared, in upper case, and by the option's own name", () => {
    expect(resolveInvocation(compiled, "1 2 --note w --dry-run", env)).toEqual(expected);
    expect(resolveInvocation(compiled, "1 2 --NOTE w --dryrun", env)).toEqual(expected);
    expect(resolveInvocation(compiled, "--Note w 1 --DRY-RUN 2", env)).toEqual(expected);
  });

  it("name the option at fault when it is not one", () => {
    expect(() => resolveInvocation(compiled, "1 2 --notes w", env)).toThrow(/--notes/);
  });
});

describe("the router's command names", () => {
  const router = new Router();
  const ran: string[] = [];
  router.command("p", "add", { aliases: ["Plus"] }, (ctx) => void ran.push(ctx.command.name));
  router.command("p", "ping", {}, (ctx) => void ran.push(ctx.command.name));
  const middleware = router.middleware(() => undefined);
  const run = async (text: string) => {
    const ctx = { addressedVia: "prefix", text, followedBy: [] } as unknown as MessageContext;
    await middleware(ctx, () => Promise.resolve());
    return ctx;
  };

  it("are found as declared, in capitals, by alias, with spaces around, and nothing else", async () => {
    ran.length = 0;
    const typed = await run("add 1 2");
    expect(typed.command).toMatchObject({ name: "add", text: "1 2", raw: "add 1 2" });
    await run("ADD 1");
    await run("  plus  2 ");
    await run("PING");
    const missed = await run("addx 1");
    expect(ran).toEqual(["add", "add", "add", "ping"]);
    expect(missed.command).toBeUndefined();
  });
});
