import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createFileStore,
  createStore,
  nodeFileOps,
  type FileOps,
} from "../../src/state/key-value/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-store-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Real file operations that count writes and can be told to hang or fail at a step. */
function instrumented() {
  const calls = { writes: 0, renames: 0 };
  let hangRename = false;
  let failWrite: Error | undefined;
  let renameDelay: Promise<void> | undefined;
  const fs: FileOps = {
    ...nodeFileOps,
    async writeSynced(path, data) {
      calls.writes++;
      if (failWrite) throw failWrite;
      return nodeFileOps.writeSynced(path, data);
    },
    async rename(from, to) {
      calls.renames++;
      if (hangRename) return new Promise<void>(() => undefined); // the process "dies" here
      if (renameDelay) await renameDelay;
      return nodeFileOps.rename(from, to);
    },
  };
  return {
    fs,
    calls,
    hang: () => (hangRename = true),
    failWrites: (error: Error | undefined) => (failWrite = error),
    delayRenames: (until: Promise<void> | undefined) => (renameDelay = until),
  };
}

describe("file store", () => {
  it("keeps values, namespaces and expiry across a reopen", async () => {
    const path = join(dir, "nested", "bot.json");
    let now = 1_000;
    const store = await createFileStore({ path, now: () => now });
    await store.set("plain", { a: [1, 2] });
    await store.namespace("karma").set("mia", 3);
    await store.set("short", "lived", { ttlMs: 100 });
    await store.close();

    now = 2_000;
    const again = await createFileStore({ path, now: () => now });
    expect(await again.get("plain")).toEqual({ a: [1, 2] });
    expect(await again.namespace("karma").get("mia")).toBe(3);
    expect(await again.get("short")).toBeUndefined();
    expect(await again.list()).toEqual(["plain"]);
    await again.close();
  });

  it("batches writes: many changes within the delay make one file write", async () => {
    const path = join(dir, "bot.json");
    const io = instrumented();
    const store = await createFileStore({ path, fs: io.fs, flushDelayMs: 20 });
    for (let i = 0; i < 50; i++) await store.set(`k${i}`, i);
    expect(io.calls.writes).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(io.calls.writes).toBe(1);
    const onDisk = JSON.parse(await readFile(path, "utf8")) as { entries: object };
    expect(Object.keys(onDisk.entries)).toHaveLength(50);
    await store.flush();
    expect(io.calls.writes).toBe(1); // nothing new: no write
    await store.close();
  });

  it("flush() writes at once, without waiting for the batch delay", async () => {
    const path = join(dir, "bot.json");
    const store = await createFileStore({ path, flushDelayMs: 60_000 });
    await store.set("now", true);
    await store.flush();
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({
      entries: { now: { value: true } },
    });
    await store.close();
  });

  it("survives a crash between writing the temp file and renaming it (injected)", async () => {
    const path = join(dir, "bot.json");
    const first = await createFileStore({ path });
    await first.set("kept", { version: 1 });
    await first.close();
    const before = await readFile(path, "utf8");

    const io = instrumented();
    const crashing = await createFileStore({ path, fs: io.fs, flushDelayMs: 60_000 });
    await crashing.set("kept", { version: 2 });
    io.hang();
    void crashing.flush(); // never settles: the process is gone
    await expect.poll(() => io.calls.renames, { timeout: 2_000 }).toBe(1);
    const names = await readdir(dir);
    expect(names.filter((n) => n.endsWith(".tmp"))).toHaveLength(1);
    expect(await readFile(path, "utf8")).toBe(before);

    // "Restart": the old file is whole, the temp file is ignored and cleaned up.
    const restarted = await createFileStore({ path });
    expect(await restarted.get("kept")).toEqual({ version: 1 });
    expect((await readdir(dir)).sort()).toEqual(["bot.json"]);
    await restarted.close();
  });

  it("survives a real process killed between write and rename", async () => {
    const path = join(dir, "bot.json");
    const child = spawn(
      process.execPath,
      [
        fileURLToPath(new URL("../fixtures/storage/crash-child.mjs", import.meta.url)),
        fileURLToPath(new URL("../../dist/src/state/key-value/file.js", import.meta.url)),
        path,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
    expect(signal).toBe("SIGKILL");
    expect(code).toBeNull();
    expect(out).toContain("first version durable");
    expect(out).toMatch(/temp written: .*bot\.json\.[0-9a-f]{12}\.tmp/);
    expect(out).not.toContain("not reached");
    expect((await readdir(dir)).some((n) => n.endsWith(".tmp"))).toBe(true);

    const store = await createFileStore({ path });
    expect(await store.get("kept")).toEqual({ version: 1 });
    expect(await store.get("lost")).toBeUndefined();
    expect(await readdir(dir)).toEqual(["bot.json"]);
    await store.close();
  });

  it("loses nothing under concurrent writes, even while a write is in flight", async () => {
    const path = join(dir, "bot.json");
    const io = instrumented();
    let release!: () => void;
    io.delayRenames(new Promise<void>((resolve) => (release = resolve)));
    const store = await createFileStore({ path, fs: io.fs, flushDelayMs: 1 });
    const a = store.namespace("a");
    const b = store.namespace("b");
    await a.set("seed", 0);
    const inFlight = store.flush(); // blocked in rename until released
    await expect.poll(() => io.calls.renames).toBe(1);
    const writes = Array.from({ length: 100 }, (_, i) =>
      Promise.all([a.set(`k${i}`, i), b.set(`k${i}`, -i), i % 10 === 0 ? store.flush() : null]),
    );
    release();
    io.delayRenames(undefined);
    await Promise.all([inFlight, ...writes]);
    await store.close();

    const reopened = await createFileStore({ path });
    expect(await reopened.namespace("a").list()).toHaveLength(101);
    expect(await reopened.namespace("b").list()).toHaveLength(100);
    expect(await reopened.namespace("b").get("k99")).toBe(-99);
    await reopened.close();
  });

  it("reports a failed background write and retries it on the next flush", async () => {
    const path = join(dir, "bot.json");
    const io = instrumented();
    const errors: unknown[] = [];
    const store = await createFileStore({
      path,
      fs: io.fs,
      flushDelayMs: 1,
      onError: (e) => errors.push(e),
    });
    io.failWrites(Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" }));
    await store.set("k", "v");
    await expect.poll(() => errors.length).toBe(1);
    expect(String(errors[0])).toContain(`could not write ${path}: ENOSPC`);
    expect((await readdir(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    io.failWrites(undefined);
    await store.flush();
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({
      entries: { k: { value: "v" } },
    });
    await store.close();
  });

  it("refuses a corrupt store file, naming it, rather than starting empty", async () => {
    const path = join(dir, "bot.json");
    await writeFile(path, "{ not json");
    await expect(createFileStore({ path })).rejects.toThrow(`storage: ${path} is not valid JSON`);
    await writeFile(path, JSON.stringify({ hello: 1 }));
    await expect(createFileStore({ path })).rejects.toThrow(/is not a topicbot store file/);
  });

  it("refuses writes after close", async () => {
    const store = await createFileStore({ path: join(dir, "bot.json") });
    await store.close();
    await expect(store.set("k", 1)).rejects.toThrow(/is closed/);
  });
});

describe("createStore", () => {
  it("selects the memory backend", async () => {
    const store = await createStore({ type: "memory" });
    await store.set("k", 1);
    expect(await store.get("k")).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it("selects the file backend, resolving a relative path against baseDir", async () => {
    const store = await createStore({ type: "file", path: "data/store.json" }, { baseDir: dir });
    await store.set("k", 1);
    await store.close();
    expect(await readdir(join(dir, "data"))).toEqual(["store.json"]);
  });
});
