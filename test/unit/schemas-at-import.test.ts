// How many zod schemas importing the wire schemas (src/api) and the config schema builds: each costs `bot start` time (issue 17), and `z.int()` is one schema where `z.number().int()` is three.
import { afterEach, expect, it, vi } from "vitest";
import { z } from "zod";

/**
 * Counts the zod schemas built while `load` runs: every schema's constructor adds the trait
 * "$ZodType" to its own `_zod.traits` Set exactly once (zod/v4/core `$constructor`), so counting
 * those `Set#add` calls counts schemas, whatever module builds them.
 */
async function schemasBuiltBy(load: () => Promise<unknown>): Promise<number> {
  const add = Set.prototype.add;
  let built = 0;
  vi.spyOn(Set.prototype, "add").mockImplementation(function (this: Set<unknown>, value) {
    if (value === "$ZodType") built++;
    return add.call(this, value);
  });
  try {
    await load();
  } finally {
    vi.restoreAllMocks();
  }
  return built;
}

afterEach(() => vi.restoreAllMocks());

it("counts what it should: z.number().int() builds three schemas, z.int() one", async () => {
  expect(await schemasBuiltBy(async () => z.number().int())).toBe(3);
  expect(await schemasBuiltBy(async () => z.int())).toBe(1);
});

it("importing the wire schemas and the config schema builds at most the schemas of today", async () => {
  vi.resetModules();
  const api = await schemasBuiltBy(() => import("../../src/api/index.js"));
  const config = await schemasBuiltBy(() => import("../../src/config/schema.js"));
  // 9a9af38 (`z.number().int()` everywhere, a schema per leaf field) built 768 and 332.
  // 317 until the `submessage` and `realm` event schemas and update_message's move fields came
  // (issue 28): event schemas are built at import, as every event is checked against them.
  expect(api).toBeLessThanOrEqual(333);
  expect(config).toBeLessThanOrEqual(322);
});

it("a leaf shared by many fields stays each field's own: describing or extending one leaves the others as they were", async () => {
  const { message } = await import("../../src/api/messages.js");
  const { str } = await import("../../src/api/leaves.js");
  expect(message.shape.content).toBe(str);
  const before = z.toJSONSchema(message, { io: "input" });
  const described = message.extend({ content: message.shape.content.describe("the body") });
  expect(z.toJSONSchema(message, { io: "input" })).toEqual(before);
  expect(z.toJSONSchema(described, { io: "input" }).properties?.content).toEqual({
    type: "string",
    description: "the body",
  });
  expect(z.toJSONSchema(described, { io: "input" }).properties?.sender_email).toEqual({
    type: "string",
  });
  expect(message.safeParse({ content: 1 }).error?.issues.map((i) => i.path.join("."))).toContain(
    "content",
  );
});

/** Values around every edge of "a safe integer", and of "a number". */
const VALUES: unknown[] = [
  0,
  -0,
  1,
  -1,
  42,
  1.5,
  -1.5,
  0.1,
  1e-300,
  2 ** 31,
  2 ** 32 + 1,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  Number.MIN_SAFE_INTEGER - 1,
  2 ** 60,
  -(2 ** 60),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.EPSILON,
  Infinity,
  -Infinity,
  NaN,
  "1",
  "",
  true,
  null,
  undefined,
  1n,
  [1],
  { valueOf: () => 1 },
];

it("z.int() accepts and reports exactly what z.number().int() does, bounds and wrappers included", () => {
  const pairs: Array<[z.ZodType, z.ZodType]> = [
    [z.number().int(), z.int()],
    [z.number().int().optional(), z.int().optional()],
    [z.number().int().nullable().optional(), z.int().nullable().optional()],
    [z.number().int().min(1).max(1_024), z.int().min(1).max(1_024)],
    [z.number().int().positive(), z.int().positive()],
    [z.number().int().nonnegative(), z.int().nonnegative()],
    [z.array(z.number().int()).min(1), z.array(z.int()).min(1)],
    [z.number().int().default(0), z.int().default(0)],
  ];
  const outcome = (schema: z.ZodType, value: unknown): unknown => {
    const result = schema.safeParse(value);
    return result.success
      ? { data: result.data }
      : { issues: result.error.issues, message: z.prettifyError(result.error) };
  };
  for (const [old, now] of pairs) {
    for (const value of [...VALUES, [1, 2.5], [], [Number.MAX_SAFE_INTEGER + 1]]) {
      expect(outcome(now, value), `${String(value)}`).toEqual(outcome(old, value));
    }
    expect(z.toJSONSchema(now, { io: "input" })).toEqual(z.toJSONSchema(old, { io: "input" }));
    expect(z.toJSONSchema(now, { io: "output" })).toEqual(z.toJSONSchema(old, { io: "output" }));
  }
});
