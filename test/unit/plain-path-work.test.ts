// Counted work on the dispatch path: what the fast paths of the router, argument resolution and turns skip.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compileSpec, resolveInvocation } from "../../src/runtime/commands/command.js";
import { arg } from "../../src/runtime/commands/types.js";
import type { Directory } from "../../src/runtime/context/directory.js";
import type { MessageContext } from "../../src/runtime/context/context.js";
import { handedOn } from "../../src/runtime/dispatch/overlap-lanes.js";
import { Router } from "../../src/runtime/dispatch/router.js";
import { Dispatcher } from "../../src/runtime/dispatch/dispatcher.js";

/**
 * Runs `script` (an ES module, imports relative to the repository) in a child Node with V8's
 * natives syntax (`%HaveSameMap`, `%HasFastProperties`) and returns the JSON it printed.
 */
function runWithNatives(script: string): unknown {
  const run = spawnSync(
    process.execPath,
    ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", script],
    { cwd: fileURLToPath(new URL("../..", import.meta.url)), encoding: "utf8", timeout: 30_000 },
  );
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout);
}

const env = { directory: {} as Directory, senderId: 1, now: 0, timeZone: async () => "UTC" };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the plain-line fast path of argument resolution", () => {
  const compiled = compileSpec("add", {
    args: { a: arg.number(), b: arg.number() },
    options: { note: arg.string().optional(), dryRun: arg.flag() },
  });

  it("finds options written as declared without looking them up by word", () => {
    const get = vi.spyOn(compiled.optionsByWord as Map<string, unknown>, "get");
    const resolved = resolveInvocation(compiled, "1 2 --note w --dry-run", env);
    expect(resolved).toEqual({ args: { a: 1, b: 2 }, options: { note: "w", dryRun: true } });
    expect(get).not.toHaveBeenCalled();
  });

  it("still finds them in other spellings (upper case, the option's name)", () => {
    const get = vi.spyOn(compiled.optionsByWord as Map<string, unknown>, "get");
    expect(resolveInvocation(compiled, "1 2 --NOTE w --dryrun", env)).toEqual({
      args: { a: 1, b: 2 },
      options: { note: "w", dryRun: true },
    });
    expect(get).toHaveBeenCalledTimes(2);
  });
});

describe("handedOn", () => {
  it("answers without a WeakMap lookup until an overlap strategy made a hand-over", () => {
    const ctx = {} as MessageContext;
    const get = vi.spyOn(WeakMap.prototype, "get");
    const answer = handedOn(ctx);
    const lookups = get.mock.calls.filter(([key]) => key === ctx).length;
    get.mockRestore();
    expect(answer).toBeUndefined();
    expect(lookups).toBe(0);
  });
});

describe("the router's command lookup", () => {
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

  it("finds a command typed as declared without slicing, lower-casing or a map lookup", async () => {
    ran.length = 0;
    const lower = vi.spyOn(String.prototype, "toLowerCase");
    const get = vi.spyOn(Map.prototype, "get");
    const ctx = await run("add 1 2");
    const lowered = lower.mock.calls.length;
    const byWord = get.mock.calls.filter(([key]) => key === "add").length;
    vi.restoreAllMocks();
    expect(ran).toEqual(["add"]);
    expect(ctx.command).toMatchObject({ name: "add", text: "1 2", raw: "add 1 2" });
    expect([lowered, byWord]).toEqual([0, 0]);
  });

  it("still finds names and aliases in capitals, and nothing for other words", async () => {
    ran.length = 0;
    await run("ADD 1");
    await run("  plus  2 ");
    await run("PING");
    const missed = await run("addx 1");
    expect(ran).toEqual(["add", "add", "ping"]);
    expect(missed.command).toBeUndefined();
  });
});

describe("the objects resolved arguments are made of", () => {
  it("are plain objects whose hidden class does not grow from that of `{}`", () => {
    // V8's own view of the objects (`%HaveSameMap`), in a process that allows natives syntax.
    const script = `
      import { compileSpec, resolveInvocation } from "./src/runtime/commands/command.ts";
      import { arg } from "./src/runtime/commands/types.ts";
      const compiled = compileSpec("add", { args: { a: arg.number(), b: arg.number() } });
      const env = { directory: {}, senderId: 1, now: 0, timeZone: async () => "UTC" };
      const { args } = resolveInvocation(compiled, "1 2", env);
      const literal = {};
      literal.a = 1;
      literal.b = 2;
      console.log(JSON.stringify({
        sameClassAsLiteral: %HaveSameMap(args, literal),
        prototypeIsObject: Object.getPrototypeOf(args) === Object.prototype,
        constructorIsObject: args.constructor === Object,
        keys: Object.keys(args),
      }));
    `;
    expect(runWithNatives(script)).toEqual({
      sameClassAsLiteral: false,
      prototypeIsObject: true,
      constructorIsObject: true,
      keys: ["a", "b"],
    });
  });
});

describe("the dispatcher's queues", () => {
  it("take each task and lane without shifting an array", async () => {
    const d = new Dispatcher({ concurrency: 2, maxQueued: 1_000 });
    const ran: string[] = [];
    const tasks = new Set<unknown>();
    // Counts the shifts of arrays that hold this test's tasks or lanes (a lane has its `key`).
    const original = Array.prototype.shift;
    let shifts = 0;
    Array.prototype.shift = function (this: unknown[]) {
      const first = this[0] as { key?: unknown } | undefined;
      if (tasks.has(first) || String(first?.key).startsWith("topic ")) shifts++;
      return original.call(this);
    };
    try {
      for (let i = 0; i < 30; i++) {
        const key = `topic ${i % 3}`;
        const task = async () => void ran.push(`${key}#${i}`);
        tasks.add(task);
        d.push(key, task);
      }
      await d.whenIdle();
    } finally {
      Array.prototype.shift = original;
    }
    expect(ran).toHaveLength(30);
    for (const key of ["topic 0", "topic 1", "topic 2"]) {
      const order = ran.filter((r) => r.startsWith(`${key}#`)).map((r) => Number(r.split("#")[1]));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    expect(shifts).toBe(0);
  });
});

describe("the services every context reads", () => {
  it("are objects in V8's fast mode, their accessors kept and not called early", () => {
    // V8's own view (`%HasFastProperties`), in a process that allows natives syntax. An object
    // literal with a getter is made in dictionary mode, where every read is a generic lookup.
    const script = `
      import { contextServices } from "./src/runtime/lifecycle.ts";
      import { createBotServices } from "./src/runtime/services.ts";
      import { silentLogger } from "./src/log/logger.ts";
      let zoneReads = 0;
      const noop = () => {};
      const parts = {
        api: {}, log: silentLogger(), server: noop, dialogs: {}, follows: {}, now: Date.now,
        storage: { namespace: () => ({}) },
        delivery: { outbox: { send: noop }, replies: { guard: noop } },
        outside: { firstReply: noop },
        timeZone: () => { zoneReads++; return "UTC"; },
      };
      const me = { userId: 7 };
      const context = contextServices(parts, me);
      const readsBefore = zoneReads;
      const bot = createBotServices({}, { log: silentLogger(), api: () => ({}), connected: () => true });
      const literal = { a: 1, get b() { return 2; } };
      console.log(JSON.stringify({
        literalIsFast: %HasFastProperties(literal),
        contextIsFast: %HasFastProperties(context),
        botIsFast: %HasFastProperties(bot),
        readsBefore,
        sameMe: context.me === me,
        zone: context.timeZone,
        zoneIsAccessor: typeof Object.getOwnPropertyDescriptor(context, "timeZone").get === "function",
        reads: zoneReads,
        webhookUrl: bot.webhookUrl ?? null,
        webhookUrlIsAccessor: typeof Object.getOwnPropertyDescriptor(bot, "webhookUrl").get === "function",
      }));
    `;
    expect(runWithNatives(script)).toEqual({
      literalIsFast: false,
      contextIsFast: true,
      botIsFast: true,
      readsBefore: 0,
      sameMe: true,
      zone: "UTC",
      zoneIsAccessor: true,
      reads: 1,
      webhookUrl: null,
      webhookUrlIsAccessor: true,
    });
  });
});
