// Property tests of the sandbox's request parsing: random parameters and whole requests never give a 500.
import fc from "fast-check";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import { pathParamNames } from "../../src/api/endpoint.js";
import { SandboxError } from "../../src/sandbox/errors.js";
import { decodeParams } from "../../src/sandbox/params.js";
import { routes } from "../../src/sandbox/routes/index.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

const endpoints = routes.map((r) => r.endpoint);

/** Raw parameter text as clients send it: JSON of every kind, near-misses and plain words. */
const rawValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? "null"),
  fc.constantFrom(
    "",
    "[]",
    "{}",
    "null",
    "true",
    "1",
    "-1",
    "0",
    "1e999",
    "NaN",
    "9007199254740993",
    "[1,",
    '"',
    "general",
    "stream",
    "private",
    "direct",
    "channel",
    "[1,2]",
    '["general"]',
    '[{"operator":"channel","operand":"general"}]',
    '[["channel","general"]]',
    "newest",
    "oldest",
    "first_unread",
    "add",
    "remove",
    "read",
    "mia@example.com",
    "\u0000",
    "😀",
  ),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -5, max: 50 }).map(String),
);

describe("decodeParams on every endpoint's schema", () => {
  it("decodes or throws a 400 SandboxError naming a parameter, nothing else", () => {
    const endpoint = fc.constantFrom(...endpoints);
    const input = endpoint.chain((ep) => {
      const names = Object.keys((ep.params as z.ZodObject).shape);
      const name = fc.oneof(
        fc.constantFrom(...(names.length ? names : ["x"])),
        fc.string({ maxLength: 5 }),
      );
      return fc.tuple(fc.constant(ep), fc.dictionary(name, rawValue, { maxKeys: 6 }));
    });
    fc.assert(
      fc.property(input, ([ep, raw]) => {
        try {
          const { ignored } = decodeParams(ep.params as z.ZodObject, raw);
          const known = Object.keys((ep.params as z.ZodObject).shape);
          expect(ignored.every((n) => n in raw && !known.includes(n))).toBe(true);
        } catch (error) {
          if (!(error instanceof SandboxError)) throw error;
          expect(error.status).toBe(400);
          expect(["BAD_REQUEST", "REQUEST_VARIABLE_MISSING"]).toContain(error.code);
          expect(error.message).not.toBe("");
        }
      }),
      { numRuns: 400 },
    );
  });
});

interface RandomRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  encoding: "query" | "form" | "multipart" | "json" | "garbage";
  who: string;
}

describe("whole requests through the sandbox over loopback", () => {
  let sandbox: Sandbox;
  let pool: Pool;
  const unexpected: unknown[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 1 });
    pool = new Pool(sandbox.url, { connections: 4, headersTimeout: 5_000, bodyTimeout: 5_000 });
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => unexpected.push(args));
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await pool.close();
    await sandbox.close();
  });

  const pathValue = fc.oneof(
    fc.integer({ min: -2, max: 40 }).map(String),
    fc.constantFrom("%zz", "%E0%A4%A", "%", "me", "general", "x%2Fy", "..", "%00", "1e3"),
    fc
      .string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map(String.fromCharCode),
        minLength: 1,
        maxLength: 6,
      })
      .filter((s) => !/[/?#]/.test(s)),
  );

  const request: fc.Arbitrary<RandomRequest> = fc.constantFrom(...endpoints).chain((ep) => {
    const names = Object.keys((ep.params as z.ZodObject).shape).filter(
      (n) => !pathParamNames(ep.path).includes(n),
    );
    const path = fc.array(pathValue, { minLength: 4, maxLength: 4 }).map((values) => {
      let i = 0;
      return `/api/v1${ep.path.replace(/\{\w+\}/g, () => values[i++]!)}`;
    });
    return fc.record({
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constant(ep.method as string) },
        { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PATCH", "PUT", "DELETE") },
      ),
      path: fc.oneof(
        { weight: 8, arbitrary: path },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            "/api/v1/",
            "/api/v1/\\",
            "/api/v1//messages",
            "/\\",
            "/api/v1/nope",
          ),
        },
      ),
      params: fc.dictionary(
        fc.oneof(
          { weight: 5, arbitrary: fc.constantFrom(...(names.length ? names : ["x"])) },
          { weight: 1, arbitrary: fc.string({ maxLength: 5 }) },
        ),
        rawValue,
        { maxKeys: 6 },
      ),
      encoding: fc.constantFrom("query", "form", "form", "multipart", "json", "garbage"),
      who: fc.constantFrom("mia", "mia", "olivia", "gus", "bot", "nobody", "wrong-key"),
    });
  });

  function encode(r: RandomRequest): {
    path: string;
    headers: Record<string, string>;
    body?: string;
  } {
    const headers: Record<string, string> = {};
    const account = sandbox.users.find((u) => u.handle === r.who);
    if (account)
      headers.authorization = `Basic ${Buffer.from(`${account.email}:${account.apiKey}`).toString("base64")}`;
    else if (r.who === "wrong-key")
      headers.authorization = `Basic ${Buffer.from("mia@example.com:nope").toString("base64")}`;
    const form = new URLSearchParams(r.params).toString();
    if (r.encoding === "query" || r.method === "GET")
      return { path: `${r.path}${form ? `?${form}` : ""}`, headers };
    if (r.encoding === "form") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      return { path: r.path, headers, body: form };
    }
    if (r.encoding === "json") {
      headers["content-type"] = "application/json";
      return { path: r.path, headers, body: JSON.stringify(r.params) };
    }
    if (r.encoding === "garbage") {
      headers["content-type"] = "multipart/form-data";
      return { path: r.path, headers, body: form || "--x\r\n" };
    }
    const boundary = "----prop7f3a";
    headers["content-type"] = `multipart/form-data; boundary=${boundary}`;
    const parts = Object.entries(r.params).map(
      ([k, v]) =>
        `--${boundary}\r\ncontent-disposition: form-data; name="${k.replace(/["\r\n]/g, "_")}"\r\n\r\n${v}\r\n`,
    );
    return { path: r.path, headers, body: `${parts.join("")}--${boundary}--\r\n` };
  }

  it("found by the property below: a target that is no path, or a broken %-escape, is a 400", async () => {
    const mia = sandbox.user("mia");
    const authorization = `Basic ${Buffer.from(`${mia.email}:${mia.apiKey}`).toString("base64")}`;
    for (const path of ["/\\", "/api/v1/users/%zz", "/api/v1/users/%E0%A4%A"]) {
      const res = await pool.request({ path, method: "PATCH", headers: { authorization } });
      expect(res.statusCode, path).toBe(400);
      expect(await res.body.json()).toMatchObject({ result: "error", code: "BAD_REQUEST" });
    }
    // An ID that is no number matches no route, as the server's <int:> URL converters: a 404.
    for (const path of ["/api/v1/messages/%zz", "/api/v1/messages/%E0%A4%A/history"]) {
      const res = await pool.request({ path, method: "GET", headers: { authorization } });
      expect(res.statusCode, path).toBe(404);
      expect(await res.body.json()).toMatchObject({ result: "error", code: "BAD_REQUEST" });
    }
  });

  it("never answer 500: every answer is a JSON success or a 4xx error with a code", async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const { path, headers, body } = encode(r);
        const res = await pool.request({ path, method: r.method as "GET", headers, body });
        const text = await res.body.text();
        expect(res.statusCode, `${r.method} ${path} -> ${text}`).toBeLessThan(500);
        if (res.headers["content-type"] !== "application/json") return;
        const answer = JSON.parse(text) as { result: string; code?: unknown; msg?: unknown };
        if (res.statusCode >= 400) {
          expect(answer.result).toBe("error");
          expect(typeof answer.code).toBe("string");
          expect(typeof answer.msg).toBe("string");
        } else {
          expect(answer.result).toBe("success");
        }
      }),
      { numRuns: 400 },
    );
    expect(unexpected).toEqual([]);
  });
});
