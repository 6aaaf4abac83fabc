// `bot start` with a server configured loads only what it runs (no sandbox, dev session, pretty logger, time words, ...), in few files.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import {
  bin as ownBin,
  cleanEnv,
  pingAndAwaitAnswer,
  sandboxServerLines,
  watch,
} from "../helpers/process.js";

/** The bin under test; `LAZY_BIN=<other checkout>/bin/bot.js` runs this test against another build. */
const bin = process.env.LAZY_BIN ?? ownBin;
const checkoutOf = (binPath: string): string =>
  fileURLToPath(new URL("../", pathToFileURL(binPath)));
/** esbuild's record of the build (scripts/bundle.mjs): which source modules each bundle file holds. */
const metaFile = join(checkoutOf(bin), "dist", "bundle-meta.json");
/**
 * The wire table of that build, the same module instance the bot loads: the bundle's
 * "topicbot/client" entry re-exports it (an unbundled build: its own file).
 */
const apiModule = new URL(
  existsSync(metaFile) ? "../dist/bundle/client.js" : "../dist/src/api/index.js",
  pathToFileURL(bin),
).href;

/**
 * The modules behind the files a process loaded: a bundle file stands for the source modules
 * esbuild put in it (`<checkout>/src/...`, `<checkout>/node_modules/...`), any other file for itself.
 */
async function modulesBehind(files: string[]): Promise<string[]> {
  if (!existsSync(metaFile)) return files;
  const root = checkoutOf(bin);
  const meta = JSON.parse(await readFile(metaFile, "utf8")) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return files.flatMap((file) => {
    const path = file.startsWith("file:") ? fileURLToPath(file) : file;
    const output = path.startsWith(root) ? meta.outputs[path.slice(root.length)] : undefined;
    return output ? Object.keys(output.inputs).map((input) => root + input) : [path];
  });
}

/**
 * Preloaded into the bot: records every module file loaded (ESM through a loader hook, CommonJS
 * through `Module.prototype._compile`, the bundle's chunks from its chunk loader's record) and
 * writes the list when the process exits; also writes
 * which endpoints of the wire table had their schemas built by then (a build without
 * `schemasBuilt` built every one of them at import), every request the bot sent, as
 * `METHOD path` in order (undici's diagnostics channel, which the bundled undici publishes to), and
 * the Node built-in modules loaded (`process.moduleLoadList`: `require` and `import` alike).
 */
const RECORDER = `
import { register } from "node:module";
import { subscribe } from "node:diagnostics_channel";
import Module from "node:module";
import { writeFileSync } from "node:fs";
import { MessageChannel } from "node:worker_threads";
const loaded = new Set();
const esModules = new Set();
const requests = [];
subscribe("undici:request:create", ({ request }) => requests.push(request.method + " " + request.path));
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => {
  loaded.add(url);
  esModules.add(url);
});
port1.unref();
register(
  "data:text/javascript," +
    encodeURIComponent(
      "let port; export async function initialize(p) { port = p; }" +
        "export async function load(url, context, next) { port.postMessage(url); return next(url, context); }",
    ),
  import.meta.url,
  { data: port2, transferList: [port2] },
);
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  loaded.add(filename);
  return compile.call(this, content, filename);
};
const api = await import(process.env.API_MODULE);
process.on("exit", () => {
  // The chunks and entries the bundle's chunk loader ran (scripts/chunk-loader.ts): vm.Script,
  // which neither hook sees. Named by their ES file, as esbuild's record of the build names them.
  const ran = globalThis[Symbol.for("topicbot.compileCache")]?.loaded ?? [];
  for (const name of ran) loaded.add(new URL(name + ".js", process.env.BUNDLE_CHUNKS).href);
  writeFileSync(process.env.LOADED_MODULES_FILE, [...loaded].join("\\n"));
  writeFileSync(process.env.ES_MODULES_FILE, [...esModules].join("\\n"));
  writeFileSync(process.env.REQUESTS_FILE, requests.join("\\n"));
  writeFileSync(
    process.env.BUILTINS_FILE,
    process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)).join("\\n"),
  );
  const built = Object.entries(api.endpoints).flatMap(([ns, group]) =>
    Object.entries(group)
      .filter(([, ep]) => (typeof api.schemasBuilt === "function" ? api.schemasBuilt(ep) : true))
      .map(([name]) => ns + "." + name),
  );
  writeFileSync(process.env.BUILT_SCHEMAS_FILE, built.join("\\n"));
});
`;

/** What `bot start` must not load when a server is configured and logs are JSON. */
const NOT_NEEDED: [string, RegExp][] = [
  ["the embedded sandbox", /\/src\/sandbox\//],
  ["the dev session", /\/src\/dev\//],
  [
    "other subcommands",
    /\/src\/cli\/(templates|commands\/(init|check|dev|sandbox|schema|cluster|send))\./,
  ],
  ["the config's JSON Schema", /\/src\/config\/reference\./],
  ["cluster mode", /\/src\/cluster\//],
  ["pino-pretty (JSON logs)", /node_modules\/pino-pretty\//],
  ["chrono-node (no time parsed yet)", /node_modules\/chrono-node\//],
  ["html-to-text (no history read)", /node_modules\/html-to-text\//],
  ["ioredis (no Redis configured)", /node_modules\/ioredis\//],
  ["marked (the sandbox's Markdown)", /node_modules\/marked\//],
  ["commander (`bot start -c <file>` needs no CLI parser)", /node_modules\/commander\//],
  ["node-cron (no schedule, no cron job)", /node_modules\/node-cron\//],
  [
    "pino's transports (logs go to a stream)",
    /node_modules\/(thread-stream|real-require|pino-abstract-transport)\/|node_modules\/pino\/lib\/(transport|worker)\./,
  ],
];

/** The endpoints `bot start` calls before and while answering `!ping`: only their schemas may be built. */
const CALLED = new Set([
  "users.me",
  // The sender of the first command, fetched by ID (the reply guard's "is the sender a human").
  "users.get",
  "events.register",
  "events.get",
  "events.deleteQueue",
  "messages.list",
  "messages.send",
]);

describe("bot start loads lazily", () => {
  let sandbox: Sandbox;
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox();
    dir = await mkdtemp(join(tmpdir(), "topicbot-lazy-"));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers !ping on a configured server without loading what it does not run", async () => {
    const config = join(dir, "bot.config.yaml");
    const recorder = join(dir, "recorder.mjs");
    const list = join(dir, "loaded.txt");
    const builtList = join(dir, "built.txt");
    const requestList = join(dir, "requests.txt");
    const builtinList = join(dir, "builtins.txt");
    const esList = join(dir, "es-modules.txt");
    await writeFile(recorder, RECORDER);
    await writeFile(
      config,
      [
        ...sandboxServerLines(sandbox),
        "logging: { level: info, format: json }",
        "plugins: [ping]",
        "",
      ].join("\n"),
    );
    child = spawn(process.execPath, ["--import", recorder, bin, "start", "-c", config], {
      env: {
        ...cleanEnv(),
        LOG_LEVEL: "info",
        LOADED_MODULES_FILE: list,
        ES_MODULES_FILE: esList,
        BUILT_SCHEMAS_FILE: builtList,
        REQUESTS_FILE: requestList,
        BUILTINS_FILE: builtinList,
        API_MODULE: apiModule,
        BUNDLE_CHUNKS: pathToFileURL(join(checkoutOf(bin), "dist", "bundle", "chunks") + "/").href,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    watch(child.stderr!);
    await stdout.waitFor(/"msg":"ready"/, 30_000);

    expect(await pingAndAwaitAnswer(sandbox, "lazy")).toBe("pong");

    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    const files = (await readFile(list, "utf8")).split("\n");
    const loaded = await modulesBehind(files);
    // The recorder works: the runtime itself is on the list.
    expect(loaded.some((f) => /\/src\/bot\/bot\.(js|ts)$/.test(f))).toBe(true);
    const unexpected = NOT_NEEDED.flatMap(([what, pattern]) => {
      const hits = loaded.filter((f) => pattern.test(f));
      return hits.length > 0 ? [`${what}: ${hits.length} modules, e.g. ${hits[0]}`] : [];
    });
    expect(unexpected).toEqual([]);

    // What it runs comes in few files (Node's loader costs ~0.4 ms per file; tsc's build: ~250
    // of topicbot's own plus zod's 95 and yaml's 73): topicbot is bundled, zod and yaml inside it.
    const own = files.filter((f) => f.includes("/dist/"));
    expect(own.length, own.join("\n")).toBeLessThanOrEqual(45);
    // Few of them ES modules, the dearer kind (~0.6 ms of CPU each on Node 20: resolve, read,
    // compile without a cache, link): the chunk loader runs the chunks and the entries, and only
    // the entries' facades, the loader, the start chunk's facade and the plugin are ES modules
    // (the recorder's own import of the wire table adds one). Until December 2026: 36.
    const esModules = (await readFile(esList, "utf8"))
      .split("\n")
      .filter((f) => f.includes("/dist/"));
    expect(esModules.length, esModules.join("\n")).toBeLessThanOrEqual(8);
    // All ASCII: one other character makes V8 hold the whole file as a two-byte string (twice the
    // memory, twice the decoding on every start); scripts/bundle.mjs escapes those esbuild leaves.
    const notAscii: string[] = [];
    for (const file of own) {
      const text = await readFile(file.startsWith("file:") ? fileURLToPath(file) : file, "utf8");
      if (/[\u0080-\uffff]/.test(text)) notAscii.push(file);
    }
    expect(notAscii).toEqual([]);
    expect(files.filter((f) => /\/node_modules\/(zod|yaml)\//.test(f))).toEqual([]);
    // pino and undici too (CommonJS files Node would otherwise resolve, read and wrap one by one):
    // no file of an installed package is loaded at all, so nothing of another version mixes in.
    expect(files.filter((f) => f.includes("/node_modules/"))).toEqual([]);

    // Not Node's own copy of undici beside the bundled one (reading `globalThis.Headers`, as
    // undici's cookie helpers did when undici loaded, loads it and compiles its HTTP parser: ~20 ms
    // of CPU; scripts/bundle-plugins.mjs, undiciCookiesOwnHeaders).
    const builtins = (await readFile(builtinList, "utf8")).split("\n");
    expect(builtins).toContain("http");
    expect(builtins.filter((m) => m.startsWith("internal/deps/undici"))).toEqual([]);

    // What it asks the server, from spawn to the answer and stop: its profile once (the CLI's probe
    // hands its answer on to the bot), the newest message once (the catch-up right after the
    // baseline does not read it again to check the baseline against the server), and never the
    // user list (the reply guard's "is the sender a human" fetches the one sender by ID).
    const requests = (await readFile(requestList, "utf8")).split("\n").filter(Boolean);
    expect(requests).toContain("POST /api/v1/messages");
    expect(
      requests.filter((r) => r === "GET /api/v1/users/me"),
      requests.join("\n"),
    ).toHaveLength(1);
    expect(
      requests.filter((r) => r.startsWith("GET /api/v1/messages?anchor=newest&")),
      requests.join("\n"),
    ).toHaveLength(1);
    expect(
      requests.filter((r) => /^GET \/api\/v1\/users(\?|$)/.test(r)),
      requests.join("\n"),
    ).toEqual([]);

    // The endpoints' schemas are built when first called, not when the wire table loads.
    const built = (await readFile(builtList, "utf8")).split("\n").filter(Boolean);
    expect(built).toContain("messages.send");
    expect(built.filter((name) => !CALLED.has(name))).toEqual([]);
  }, 60_000);

  it("keeps the CLI's output module in the CLI's own file, not a chunk of its own that every start loads", async () => {
    // esbuild gives a module its own chunk when another entry (a subcommand) imports a value from
    // it too: `bot check` taking `maskSecret` from output.ts cost every `bot start` one more file.
    expect(existsSync(metaFile), metaFile).toBe(true);
    const meta = JSON.parse(await readFile(metaFile, "utf8")) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    const holding = (input: string): string[] =>
      Object.keys(meta.outputs).filter((out) => input in meta.outputs[out]!.inputs);
    expect(holding("src/cli/output.ts")).toEqual(holding("src/cli/main.ts"));
  });
});
