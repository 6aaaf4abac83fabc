import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decodeParams } from "../../src/sandbox/params.js";
import type { SandboxError } from "../../src/sandbox/errors.js";

const schema = z.object({
  to: z.union([z.string(), z.number(), z.array(z.number())]),
  content: z.string(),
  flag: z.boolean().optional(),
});

function failure(fn: () => unknown): SandboxError {
  try {
    fn();
  } catch (error) {
    return error as SandboxError;
  }
  throw new Error("expected an error");
}

describe("decodeParams", () => {
  it("reads JSON for non-string values and raw text for strings", () => {
    expect(decodeParams(schema, { to: "[1,2]", content: "42", flag: "true" }).params).toEqual({
      to: [1, 2],
      content: "42",
      flag: true,
    });
    expect(decodeParams(schema, { to: "general", content: '"quoted"' }).params).toEqual({
      to: "general",
      content: '"quoted"',
    });
    expect(decodeParams(schema, { to: "7", content: "x" }).params.to).toBe(7);
  });

  it("names a missing required parameter in var_name", () => {
    const error = failure(() => decodeParams(schema, { to: "general" }));
    expect(error.code).toBe("REQUEST_VARIABLE_MISSING");
    expect(error.extra).toEqual({ var_name: "content" });
  });

  it("names a malformed parameter", () => {
    const error = failure(() => decodeParams(schema, { to: "x", content: "y", flag: "maybe" }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message).toMatch(/flag/);
  });

  it("lists unknown parameters as ignored", () => {
    expect(decodeParams(schema, { to: "x", content: "y", colour: "red" }).ignored).toEqual([
      "colour",
    ]);
  });

  it("gives the same verdict on an absent parameter every time, and a default made anew each time", () => {
    const withDefault = z.object({
      content: z.string(),
      topic: z.string().optional(),
      narrow: z.array(z.string()).default([]),
    });
    for (let round = 0; round < 3; round++) {
      const missing = failure(() => decodeParams(withDefault, { topic: "t" }));
      expect(missing.code).toBe("REQUEST_VARIABLE_MISSING");
      expect(missing.toBody()).toMatchObject({ var_name: "content" });
      const { params } = decodeParams(withDefault, { content: "x" });
      expect(params).toEqual({ content: "x", narrow: [] });
      expect("topic" in params).toBe(false);
    }
    const first = decodeParams(withDefault, { content: "x" }).params.narrow;
    first.push("changed");
    expect(decodeParams(withDefault, { content: "x" }).params.narrow).toEqual([]);
  });
});
