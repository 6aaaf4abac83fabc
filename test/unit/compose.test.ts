import { describe, expect, it } from "vitest";
import { compose } from "../../src/dispatch/compose.js";

describe("compose", () => {
  it("runs middleware as an onion: down in order, back up in reverse", async () => {
    const log: string[] = [];
    const run = compose<{ log: string[] }>([
      async (ctx, next) => {
        ctx.log.push("a>");
        await next();
        ctx.log.push("<a");
      },
      async (ctx, next) => {
        ctx.log.push("b>");
        await next();
        ctx.log.push("<b");
      },
      (ctx) => {
        ctx.log.push("c");
      },
    ]);
    await run({ log });
    expect(log).toEqual(["a>", "b>", "c", "<b", "<a"]);
  });

  it("stops when a middleware does not call next", async () => {
    const seen: string[] = [];
    await compose<unknown>([() => void seen.push("first"), () => void seen.push("second")])({});
    expect(seen).toEqual(["first"]);
  });

  it("calls the final next after the chain", async () => {
    const seen: string[] = [];
    await compose<unknown>([(_ctx, next) => next()])({}, async () => void seen.push("last"));
    expect(seen).toEqual(["last"]);
  });

  it("throws when next() is called twice", async () => {
    const run = compose<unknown>([
      async (_ctx, next) => {
        await next();
        await next();
      },
    ]);
    await expect(run({})).rejects.toThrow(/next\(\) called more than once/);
  });

  it("propagates errors thrown deeper in the chain", async () => {
    const run = compose<unknown>([
      (_ctx, next) => next(),
      () => {
        throw new Error("boom");
      },
    ]);
    await expect(run({})).rejects.toThrow("boom");
  });
});
