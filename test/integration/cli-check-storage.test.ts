// bot check checks the storage as bot start uses it, and only reads it (the bot may be running).
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-check-storage-"));
  await mkdir(join(dir, "data"));
  // A server nobody answers at: the storage is checked before connecting.
  await writeFile(
    join(dir, "bot.config.yaml"),
    "server:\n  site: http://127.0.0.1:1\n  email: bot@example.com\n  apiKey: abcdefgh\nstorage: { type: file, path: data/bot.json }\n",
  );
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function run(command: string) {
  const stderr: string[] = [];
  const code = await main([command, "-c", join(dir, "bot.config.yaml")], {
    stdout: () => undefined,
    stderr: (line) => stderr.push(line),
  });
  return { code, stderr: stderr.join("\n") };
}

it("a journal of a newer version: check and start exit 2 with the same words (old code: check said All good)", async () => {
  await writeFile(join(dir, "data", "bot.json.delivery.jsonl"), '{"v":2}\n{"q":[1]}\n');
  const check = await run("check");
  const start = await run("start");
  expect(check.code).toBe(2);
  expect(start.code).toBe(2);
  const line = (text: string) => text.split("\n").find((l) => l.startsWith("error: "));
  expect(line(check.stderr)).toMatch(
    /storage: delivery journal .* line 1: written by a newer topicbot/,
  );
  expect(line(start.stderr)).toBe(line(check.stderr));
});

it("a store file of another format version: exit 2 naming it", async () => {
  await writeFile(
    join(dir, "data", "bot.json"),
    JSON.stringify({ format: "topicbot-store", version: 9, entries: {} }),
  );
  const check = await run("check");
  expect(check.code).toBe(2);
  expect(check.stderr).toMatch(
    /written by a newer topicbot \(store format version 9; this version reads 1\)/,
  );
});

it("reads a journal without changing it, even one whose last line a running bot is writing", async () => {
  const path = join(dir, "data", "bot.json.delivery.jsonl");
  await writeFile(path, '{"q":[1]}\n{"w":');
  await run("check");
  expect(await readFile(path, "utf8")).toBe('{"q":[1]}\n{"w":');
});
