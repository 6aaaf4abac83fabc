// Every error code the sandbox can give is listed in ERROR_CODES (src/api/envelope.ts), found by reading src/sandbox.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/api/envelope.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SANDBOX = join(ROOT, "src/sandbox");

/** Every TypeScript source under src/sandbox, with its path relative to the repository. */
function sources(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts")
      ? [{ path: relative(ROOT, full), text: readFileSync(full, "utf8") }]
      : [];
  });
}

/**
 * Call sites whose code is not a literal: each variable is typed `KnownErrorCode` (the
 * `SandboxError` constructor takes nothing else), so the type checker holds them to the list.
 */
const NON_LITERAL_SITES = new Set(["src/sandbox/routes/push.ts: mode"]);

describe("sandbox error codes", () => {
  const files = sources(SANDBOX);
  const literal: { code: string; where: string }[] = [];
  const nonLiteral: string[] = [];
  let calls = 0;
  let matched = 0;
  for (const { path, text } of files) {
    calls += text.match(/new SandboxError\(/g)?.length ?? 0;
    for (const m of text.matchAll(/new SandboxError\(\s*(?:"([A-Z_]+)"|([A-Za-z_$][\w$.]*))/g)) {
      matched++;
      if (m[1]) literal.push({ code: m[1], where: path });
      else nonLiteral.push(`${path}: ${m[2]}`);
    }
    // Error bodies written directly (not-found routes, internal errors, control routes).
    for (const m of text.matchAll(/\bcode: "([A-Z_]+)"/g))
      literal.push({ code: m[1]!, where: path });
  }

  it("reads every SandboxError construction", () => {
    expect(files.length).toBeGreaterThan(20);
    expect(literal.length).toBeGreaterThan(15);
    expect(matched).toBe(calls);
  });

  it("lists every literal code in ERROR_CODES", () => {
    const known = new Set<string>(ERROR_CODES);
    const missing = literal.filter((l) => !known.has(l.code)).map((l) => `${l.code} (${l.where})`);
    expect(missing, "add these to ERROR_CODES in src/api/envelope.ts").toEqual([]);
    expect(new Set(literal.map((l) => l.code))).toContain("AUTHENTICATION_FAILED");
  });

  it("has no code from a variable the type checker does not hold to the list", () => {
    expect(nonLiteral.filter((site) => !NON_LITERAL_SITES.has(site))).toEqual([]);
  });
});
