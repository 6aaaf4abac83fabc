// `topicbot/testing` where vitest is not installed: createTestBot loads; only describePluginDefaults says what is missing.
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";

/** The `topicbot/testing` entry as published (package.json `exports`, built by scripts/bundle.mjs). */
const testing = pathToFileURL(
  fileURLToPath(new URL("../../dist/bundle/testing.js", import.meta.url)),
);

/** A resolve hook that makes `vitest` unresolvable, as in a project that never installed it. */
const noVitest = `data:text/javascript,${encodeURIComponent(
  'export async function resolve(s, c, n) { if (s === "vitest") throw Object.assign(new Error("Cannot find package \'vitest\'"), { code: "ERR_MODULE_NOT_FOUND" }); return n(s, c); }',
)}`;

it("imports without vitest, and describePluginDefaults names what to install", () => {
  const script = `
    import { register } from "node:module";
    register(${JSON.stringify(noVitest)});
    const t = await import(${JSON.stringify(testing.href)});
    console.log("createTestBot", typeof t.createTestBot);
    try { t.describePluginDefaults({ name: "x", setup() {} }); } catch (e) { console.log(e.message); }
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.stderr).toBe("");
  expect(run.stdout).toContain("createTestBot function");
  expect(run.stdout).toContain("vitest is not installed: `npm install --save-dev vitest`");
});
