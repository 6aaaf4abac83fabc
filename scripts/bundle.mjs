// Build step after tsc: bundles the published JavaScript with esbuild into dist/bundle/, one file per package export plus the CLI, sharing code-split chunks.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { URL, fileURLToPath } from "node:url";
import { build } from "esbuild";
import {
  pinoTransportOnUse,
  undiciOnUse,
  yamlAsModules,
  zodLocalesOnUse,
} from "./bundle-plugins.mjs";

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
 * read and wrap one by one on every start. Users meet them only through methods: the loggers
 * topicbot gives them are pino's (`log.info(...)`), topicbot's Pool never leaves the client, and a
 * user's own dispatcher (a MockAgent) is called through undici's public methods only. The parts
 * that load files by path stay the installed package's (see `pinoTransportOnUse`, `undiciOnUse`).
 */
const INLINED = ["zod", "yaml", "eventemitter3", "pino", "undici"];
/** Everything else stays an import of the installed package: native parts, worker files, paths read at run time, optional peers. */
const external = [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
].filter((name) => !INLINED.includes(name));

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
  plugins: [zodLocalesOnUse, pinoTransportOnUse, undiciOnUse, yamlAsModules],
});

// Which source modules each output file holds: test/e2e/cli-start-lazy.test.ts reads it to tell
// what `bot start` loaded. Beside the bundle, not shipped.
writeFileSync(new URL("dist/bundle-meta.json", root), JSON.stringify(result.metafile));

// Node reads each file as UTF-8 and V8 keeps its source: one non-ASCII character anywhere (zod
// has an em dash in a comment) makes the whole 400 KB chunk a two-byte string, twice the memory
// and about twice the decoding time on every start. esbuild already escapes non-ASCII characters
// in strings, template literals, regular expressions and names (`charset: "ascii"`, its default),
// so what is left is in comments, where an escape is plain text: each character becomes `\uXXXX`
// (in a `//` comment, as zod's is, the rest of the line is comment, so the source map stays right).
for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith(".js"))) {
  const url = new URL(file, root);
  const code = readFileSync(url, "utf8");
  if (/[\u0080-\uffff]/.test(code))
    writeFileSync(
      url,
      // Without the `u` flag each UTF-16 unit (a surrogate too) is matched and escaped alone.
      code.replace(
        /[\u0080-\uffff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      ),
    );
}
