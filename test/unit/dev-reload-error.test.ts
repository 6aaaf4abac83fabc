import { describe, expect, it } from "vitest";
import { describeReloadError } from "../../src/dev/web/reload-error.js";

describe("describeReloadError", () => {
  it("finds the file and line of a syntax error in the message (tsx/esbuild style)", () => {
    const error = new Error(
      'Transform failed with 1 error:\n/home/me/bot/plugins/greet.ts:3:10: ERROR: Expected ";" but found "="',
    );
    expect(describeReloadError(error, "/home/me/bot")).toEqual({
      error: error.message,
      location: "plugins/greet.ts:3:10",
    });
  });

  it("finds the plugin's own frame in a cause's stack, skipping node_modules and a cache-busting query", () => {
    const cause = new Error("boom");
    cause.stack = [
      "Error: boom",
      "    at helper (/home/me/bot/node_modules/lib/index.js:1:1)",
      "    at setup (file:///home/me/bot/deploy.ts?v=3:12:7)",
    ].join("\n");
    const error = new Error('plugin "deploy" failed in setup: boom', { cause });
    expect(describeReloadError(error, "/home/me/bot").location).toBe("deploy.ts:12:7");
  });

  it("gives the message alone when nothing names a place", () => {
    const error = new Error('plugin "x" not found');
    error.stack = 'Error: plugin "x" not found';
    expect(describeReloadError(error, "/")).toEqual({ error: 'plugin "x" not found' });
  });
});
