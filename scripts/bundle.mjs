// Build step after tsc: bundles the published JavaScript with esbuild into dist/bundle/, one file per package export plus the CLI, sharing code-split chunks.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { sep } from "node:path";
import { URL, fileURLToPath } from "node:url";
import { build } from "esbuild";

// Why (issue 17, start-up): Node's ES-module loader costs about 0.4 ms per file, and `bot start`
// loaded ~250 of tsc's files plus zod's 95 and yaml's 73. Every export and the CLI are entry points
// of ONE esbuild run with code splitting, so each module exists exactly once at run time: a user's
// plugin importing "topicbot" and the CLI that loads it share the same chunks (classes, symbols,
// `instanceof`, module-level registries). The CLI's lazy `import()`s (commands, sandbox, dev,
// cluster, webhook receiver, Markdown) stay separate chunks that `bot start` does not load.
// Types still come from tsc (dist/src/**/*.d.ts), which is why the bundled packages stay in
// `dependencies`: the declarations import them.

const root = new URL("..", import.meta.url);
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));

/** Output name (under dist/bundle/) → source entry; package.json's `exports` and bin/bot.js point at these. */
const ENTRIES = {
  index: "src/index.ts",
  client: "src/client/index.ts",
  sandbox: "src/sandbox/index.ts",
  testing: "src/testing/index.ts",
  webhooks: "src/webhooks/index.ts",
  ai: "src/ai/index.ts",
  cli: "src/cli/main.ts",
};

/**
 * Pure-JavaScript dependencies compiled into the chunks. zod is safe to inline: users take `z`
 * from "topicbot"; a schema built with their own zod copy is read through its public shape
 * (`safeParse`, `_zod.def`), and zod keeps its registry and config on `globalThis`, shared
 * between copies. pino (with sonic-boom, its serializers, redaction) and undici's Pool (what
 * src/client/undici-pool.ts imports) are ~55 CommonJS files that Node would otherwise resolve,
 * read and wrap one by one on every start; topicbot never hands their objects to a user, and a
 * user's own dispatcher (a MockAgent) is called through undici's public methods only. The parts
 * that load files by path stay the installed package's (see `pinoTransportOnUse`, `undiciOnUse`).
 */
const INLINED = ["zod", "yaml", "eventemitter3", "pino", "undici"];
/** Everything else stays an import of the installed package: native parts, worker files, paths read at run time, optional peers. */
const external = [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
].filter((name) => !INLINED.includes(name));

/**
 * zod's 62 non-English locales (366 KB, half of zod) are compiled on every start only because
 * `z.locales` (and `z.core.locales`) name them all. In the bundle each becomes a function that
 * loads that locale from the installed zod (its CommonJS file) when called: `z.locales.fr()` works
 * as before and costs nothing until used. English stays inlined: zod configures it at import.
 */
const zodLocalesOnUse = {
  name: "zod-locales-on-use",
  setup(build) {
    const folder = new URL("node_modules/zod/v4/locales/", root);
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${sep}node_modules${sep}zod${sep}v4${sep}`)
        ? { path: "zod-locales", namespace: "zod-locales-on-use" }
        : undefined,
    );
    build.onResolve({ filter: /^zod\/v4\/locales\/[\w-]+\.cjs$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
    build.onLoad({ filter: /.*/, namespace: "zod-locales-on-use" }, () => {
      const index = readFileSync(new URL("index.js", folder), "utf8");
      const locales = [
        ...index.matchAll(/export \{ default as (\w+) \} from "\.\/([\w-]+)\.js";/g),
      ];
      if (locales.length < 2 || !locales.some(([, name]) => name === "en"))
        throw new Error("zod's locales/index.js changed shape: update scripts/bundle.mjs");
      const lines = locales.map(([, name, file]) => {
        if (file === "en") return `export { default as en } from "zod/v4/locales/en.js";`;
        if (!existsSync(new URL(`${file}.cjs`, folder)))
          throw new Error(`zod has no v4/locales/${file}.cjs: update scripts/bundle.mjs`);
        // The CommonJS locale file's module.exports is the locale function.
        return `export const ${name} = (...args) => require("zod/v4/locales/${file}.cjs")(...args);`;
      });
      return { contents: lines.join("\n"), resolveDir: fileURLToPath(root), loader: "js" };
    });
  },
};

/**
 * pino's transports run in a worker thread that loads pino's own files by path (`lib/worker.js`,
 * `file.js`, thread-stream's worker): `pino.transport()` (and the `transport` option) therefore
 * stay the installed pino's `lib/transport.js`, required when first called. topicbot's logger
 * writes to a stream and never calls it, so `bot start` no longer loads thread-stream and its kin.
 */
const pinoTransportOnUse = {
  name: "pino-transport-on-use",
  setup(build) {
    build.onResolve({ filter: /^\.\/(lib\/)?transport$/ }, (args) =>
      inPackage(args.importer, "pino")
        ? { path: "pino-transport", namespace: "pino-transport-on-use" }
        : undefined,
    );
    build.onResolve({ filter: /^pino\/lib\/transport\.js$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
    build.onLoad({ filter: /.*/, namespace: "pino-transport-on-use" }, () => {
      if (!existsSync(new URL("node_modules/pino/lib/transport.js", root)))
        throw new Error("pino has no lib/transport.js: update scripts/bundle.mjs");
      return {
        contents:
          'module.exports = function transport(...args) { return require("pino/lib/transport.js")(...args); };',
        resolveDir: fileURLToPath(root),
        loader: "js",
      };
    });
  },
};

/**
 * undici's files that its Pool requires only on use stay the installed package's, loaded when
 * first needed as before: the llhttp WebAssembly (72 KB of base64 each, read at the first
 * connection) and fetch's body extraction (a FormData body; it pulls in most of fetch).
 * undici's HTTP/2 client is left out: topicbot's Pool never offers HTTP/2 (no `allowH2`), so a
 * server can never pick it; the module that stands in throws an error naming the cause if it is
 * ever reached. (A dispatcher a user passes in is their own undici, untouched.)
 */
const undiciOnUse = {
  name: "undici-on-use",
  setup(build) {
    const lazy = /^\.\.\/(llhttp\/llhttp(_simd)?-wasm\.js|web\/fetch\/body\.js)$/;
    build.onResolve({ filter: lazy }, (args) => {
      if (!inPackage(args.importer, "undici")) return undefined;
      const path = `undici/lib/${args.path.slice(3)}`;
      if (!existsSync(new URL(`node_modules/${path}`, root)))
        throw new Error(`undici has no ${path.slice(7)}: update scripts/bundle.mjs`);
      return { path, external: true };
    });
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      inPackage(args.importer, "undici")
        ? { path: "undici-client-h2", namespace: "undici-on-use" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "undici-on-use" }, () => ({
      contents: `module.exports = function connectH2() {
  throw new Error(${JSON.stringify(UNDICI_NO_H2)});
};`,
      loader: "js",
    }));
  },
};

/** The error topicbot's bundled undici throws if a server ever negotiates HTTP/2 with it (test/e2e/cli-start-lazy.test.ts matches it). */
const UNDICI_NO_H2 =
  "topicbot's bundled undici has no HTTP/2 client: its Pool is created without allowH2, so HTTP/2 should never be negotiated (pass your own undici dispatcher to use HTTP/2)";

/** Whether `importer` is a file of the installed package `name`. */
const inPackage = (importer, name) => importer.includes(`${sep}node_modules${sep}${name}${sep}`);

// Chunk names carry content hashes: clear the last build so no stale chunk is shipped.
rmSync(new URL("dist/bundle", root), { recursive: true, force: true });

const result = await build({
  absWorkingDir: fileURLToPath(root),
  entryPoints: ENTRIES,
  outdir: "dist/bundle",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  // The inlined CommonJS packages (yaml, eventemitter3, pino, undici) call `require` for Node's
  // built-ins and for the files left to the installed packages.
  banner: {
    js: 'import { createRequire as __topicbotCreateRequire } from "node:module"; const require = __topicbotCreateRequire(import.meta.url);',
  },
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
  plugins: [zodLocalesOnUse, pinoTransportOnUse, undiciOnUse],
});

// Which source modules each output file holds: test/e2e/cli-start-lazy.test.ts reads it to tell
// what `bot start` loaded. Beside the bundle, not shipped.
writeFileSync(new URL("dist/bundle-meta.json", root), JSON.stringify(result.metafile));
