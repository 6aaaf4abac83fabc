// `bot start`'s compile cache (scripts/chunk-loader.ts): written by one start, used by the next, refused when damaged, never taken from a folder others can write to.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import {
  chmod,
  chown,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import {
  bin,
  cleanEnv,
  killIfRunning,
  pingAndAwaitAnswer,
  sandboxServerLines,
  watch,
} from "../helpers/process.js";

/** The compile cache's record, as `bot start` logs it at debug level when ready. */
interface Report {
  dir?: string;
  off?: string;
  hits: string[];
  misses: string[];
  rejected: string[];
  written: string[];
  errors?: string[];
}

/** Our folder inside NODE_COMPILE_CACHE (the loader's format version in its name). */
const OURS = "topicbot-1";

describe("bot start's compile cache", () => {
  let sandbox: Sandbox;
  let dir: string;
  let cache: string;
  let config: string;
  let child: ChildProcess | undefined;
  let topics = 0;
  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 30 });
    dir = await mkdtemp(join(tmpdir(), "topicbot-compile-cache-"));
    config = join(dir, "bot.config.yaml");
    await writeFile(
      config,
      [
        ...sandboxServerLines(sandbox),
        "logging: { level: debug, format: json }",
        "plugins: [ping]",
        "",
      ].join("\n"),
    );
  });
  beforeEach(async () => {
    cache = join(dir, `cache-${topics}`);
    await mkdir(cache, { mode: 0o700 });
  });
  afterAll(async () => {
    await killIfRunning(child);
    await sandbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Starts the built bot, reads its compile-cache record, has it answer `!ping`, and stops it. */
  async function startOnce(env: NodeJS.ProcessEnv = {}): Promise<Report> {
    child = spawn(process.execPath, [bin, "start", "-c", config], {
      env: { ...cleanEnv(), NODE_OPTIONS: "", NODE_COMPILE_CACHE: cache, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    let report: Report;
    try {
      const [line] = await stdout.waitFor(/^.*"msg":"compile cache".*$/m, 30_000);
      report = (JSON.parse(line) as { compileCache: Report }).compileCache;
    } catch (error) {
      throw new Error(`${(error as Error).message}\nstderr:\n${stderr.text}`);
    }
    const topic = `cache-${topics++}`;
    expect(await pingAndAwaitAnswer(sandbox, topic)).toBe("pong");
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code, stderr.text).toBe(0);
    return report;
  }

  const cacheFiles = async (): Promise<string[]> =>
    (await readdir(join(cache, OURS)).catch(() => [])).sort();

  it("is written by the first start and compiles the second start's chunks from it", async () => {
    const first = await startOnce();
    expect(first.dir).toBe(join(cache, OURS));
    expect(first.hits).toEqual([]);
    expect(first.misses.length).toBeGreaterThan(10);
    expect(first.errors).toBeUndefined();
    // Written before the memory policy changes a V8 flag, so before the ready line: the next start
    // runs with Node's flags, and V8 refuses a code cache made under other flags.
    expect([...first.written].sort()).toEqual([...first.misses].sort());
    // One file per chunk, named by the chunk, the hash of its code, its path and this Node.
    for (const name of first.misses)
      expect(name).toMatch(/^([a-z]+-[A-Z0-9]+|entry-[a-z-]+)-[0-9a-f]{16}-[0-9a-f]{8}$/);
    const files = await cacheFiles();
    expect(files).toEqual(
      first.misses.map((name) => `${name}-${process.version}-${process.arch}.v8`).sort(),
    );
    expect((await stat(join(cache, OURS))).mode & 0o777).toBe(0o700);
    expect((await stat(join(cache, OURS, files[0]!))).mode & 0o777).toBe(0o600);

    const second = await startOnce();
    expect({ misses: second.misses, rejected: second.rejected, written: second.written }).toEqual({
      misses: [],
      rejected: [],
      written: [],
    });
    expect([...second.hits].sort()).toEqual([...first.misses].sort());
  }, 90_000);

  it("refuses a damaged cache file, still answers, and writes the file again", async () => {
    const first = await startOnce();
    const files = await cacheFiles();
    expect(files.length).toBeGreaterThan(10);
    // The largest chunk's file (zod's), its bytes replaced.
    const sizes = await Promise.all(
      files.map(async (f) => (await stat(join(cache, OURS, f))).size),
    );
    const damaged = files[sizes.indexOf(Math.max(...sizes))]!;
    const chunk = damaged.slice(0, damaged.indexOf("-v"));
    const garbage = Buffer.alloc(Math.max(...sizes), "x");
    await writeFile(join(cache, OURS, damaged), garbage);
    // And the file of a build gone 40 days ago: pruned when a start writes.
    const stale = join(cache, OURS, `chunk-GONE-0123456789abcdef-${process.version}-x.v8`);
    await writeFile(stale, "old");
    const longAgo = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000);
    await utimes(stale, longAgo, longAgo);

    const second = await startOnce();
    expect(second.rejected).toEqual([chunk]);
    expect(second.written).toEqual([chunk]);
    expect(second.hits.length).toBe(first.misses.length - 1);
    expect((await readFile(join(cache, OURS, damaged))).equals(garbage)).toBe(false);
    expect(await cacheFiles()).toEqual(files);

    const third = await startOnce();
    expect({ hits: third.hits.length, rejected: third.rejected }).toEqual({
      hits: first.misses.length,
      rejected: [],
    });
  }, 90_000);

  it("does not use a folder others may write to, nor one under a parent others may write to", async () => {
    await mkdir(join(cache, OURS));
    await chmod(join(cache, OURS), 0o770);
    const shared = await startOnce();
    expect(shared.dir).toBeUndefined();
    expect(shared.off).toMatch(/topicbot-1 has mode 770: others may use it/);
    expect({ misses: shared.misses, written: shared.written }).toEqual({ misses: [], written: [] });
    expect(await cacheFiles()).toEqual([]);

    await rm(join(cache, OURS), { recursive: true });
    await chmod(cache, 0o777); // No sticky bit: anyone could swap our folder for theirs.
    const underShared = await startOnce();
    expect(underShared.off).toMatch(/has mode 777: others may write it/);
    expect(await cacheFiles()).toEqual([]);
  }, 90_000);

  it.runIf(process.getuid?.() === 0)(
    "does not use a folder of another user's",
    async () => {
      await mkdir(join(cache, OURS), { mode: 0o700 });
      await chown(join(cache, OURS), 65534, 65534);
      const report = await startOnce();
      expect(report.off).toMatch(/topicbot-1 belongs to user 65534, not 0/);
      expect(await cacheFiles()).toEqual([]);
    },
    60_000,
  );

  it("writes nothing with NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch)", async () => {
    const report = await startOnce({ NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(report).toMatchObject({ off: "NODE_DISABLE_COMPILE_CACHE=1", hits: [], written: [] });
    expect(await readdir(cache)).toEqual([]);
  }, 60_000);
});

describe("the bundle's chunks under the chunk loader", () => {
  it("map their stack frames to src/ when source maps are on", async () => {
    // createClient runs in the client's chunk, which the loader compiles; a bad `site` throws there.
    const client = new URL("../../dist/bundle/client.js", import.meta.url).href;
    const script = `import(${JSON.stringify(client)}).then(({ createClient }) => { try { createClient({ site: 5 }); } catch (e) { console.log(e.stack); } });`;
    const child = spawn(process.execPath, ["--enable-source-maps", "-e", script], {
      env: { ...cleanEnv(), NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    await stdout.waitFor(/at createClient/, 15_000);
    await once(child, "exit");
    expect(stdout.text).toMatch(/at createClient \(.*\/src\/client\/client\.ts:\d+:\d+\)/);
    expect(stdout.text).not.toMatch(/\.cjs:/);
  }, 30_000);
});

describe("the compile cache shared by two checkouts of the same build", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "topicbot-two-checkouts-"));
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** A copy of the built package at `<root>/<name>` (its dependencies linked, as an install has them). */
  async function checkout(name: string): Promise<string> {
    const at = join(root, name);
    await mkdir(join(at, "dist"), { recursive: true });
    await cp(
      fileURLToPath(new URL("../../dist/bundle", import.meta.url)),
      join(at, "dist/bundle"),
      {
        recursive: true,
      },
    );
    await cp(
      fileURLToPath(new URL("../../package.json", import.meta.url)),
      join(at, "package.json"),
    );
    await symlink(
      fileURLToPath(new URL("../../node_modules", import.meta.url)),
      join(at, "node_modules"),
    );
    return at;
  }

  /** The stack of an error thrown inside the client's chunk, run from `at` with the shared cache. */
  async function stackFrom(at: string, cache: string): Promise<string> {
    const client = pathToFileURL(join(at, "dist/bundle/client.js")).href;
    // Alive for 1.5 s: the loader writes the cache a second after the chunks ran.
    const script = `import(${JSON.stringify(client)}).then(({ createClient }) => { try { createClient({ site: 5 }); } catch (e) { console.log(e.stack); } setTimeout(() => {}, 1500); });`;
    const child = spawn(process.execPath, ["-e", script], {
      env: { ...cleanEnv(), NODE_OPTIONS: "", NODE_COMPILE_CACHE: cache },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code, stderr.text).toBe(0);
    return stdout.text;
  }

  it("names the files of the checkout that ran, not those of the one that wrote the cache", async () => {
    const first = await checkout("first");
    const second = await checkout("second");
    const cache = join(root, "cache");
    await mkdir(cache, { mode: 0o700 });
    expect(await stackFrom(first, cache)).toContain(join(first, "dist/bundle/"));
    expect((await readdir(join(cache, OURS))).length).toBeGreaterThan(0); // the first wrote it
    const stack = await stackFrom(second, cache);
    expect(stack).toMatch(/at createClient/);
    expect(stack).toContain(join(second, "dist/bundle/"));
    expect(stack).not.toContain(first);
  }, 60_000);
});
