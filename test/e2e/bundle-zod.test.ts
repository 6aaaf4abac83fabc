// zod inlined in the published bundle (scripts/bundle.mjs): its locales are inlined with it, and it mixes with the zod a user installs.
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";

const checkout = fileURLToPath(new URL("../../", import.meta.url));
/** The "topicbot" entry as published (package.json `exports`). */
const entry = pathToFileURL(`${checkout}dist/bundle/index.js`).href;

it("z from topicbot: z.locales.* work (inlined), and schemas mix with the installed zod", () => {
  const script = `
    const { z } = await import(${JSON.stringify(entry)});
    const { z: installed } = await import("zod");
    const mixed = z.object({ name: installed.string(), count: z.number() });
    console.log("mixed ok", mixed.safeParse({ name: "a", count: 1 }).success);
    console.log("mixed issue", mixed.safeParse({ name: 1, count: 1 }).error.issues[0].path.join("."));
    console.log("locales", Object.keys(z.locales).length);
    z.config(z.locales.fr());
    console.log("fr", z.string().safeParse(1).error.issues[0].message);
    console.log("fr shared", installed.string().safeParse(1).error.issues[0].message);
    z.config(z.locales.en());
    console.log("en", z.string().safeParse(1).error.issues[0].message);
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: checkout,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.stderr).toBe("");
  const lines = run.stdout.split("\n");
  expect(lines).toContain("mixed ok true");
  expect(lines).toContain("mixed issue name");
  expect(lines).toContain("locales 63");
  expect(lines).toContain("fr Entrée invalide : chaîne de caractères attendu, nombre reçu");
  // zod keeps its config on globalThis: the installed copy speaks French too.
  expect(lines).toContain("fr shared Entrée invalide : chaîne de caractères attendu, nombre reçu");
  expect(lines).toContain("en Invalid input: expected string, received number");
});
