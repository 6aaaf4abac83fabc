// Build step after tsc: bundles the published JavaScript with esbuild into dist/bundle/, one file per package export plus the CLI, sharing code-split chunks.
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { stdout } from "node:process";
import { URL, fileURLToPath } from "node:url";
import { build, transform } from "esbuild";
import { pinoWithoutTransport, undiciCookiesOwnHeaders, yamlAsModules } from "./bundle-plugins.mjs";

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
  "chat-sdk": "src/chat-sdk/index.ts",
  cli: "src/cli/main.ts",
  // Not an export: the cassette recorder's worker thread (src/record/recorder.ts starts it).
  "recorder-thread": "src/record/recorder-thread.ts",
};

/**
 * Pure-JavaScript dependencies compiled into the chunks. zod is safe to inline: users take `z`
 * from "topicbot"; a schema built with their own zod copy is read through its public shape
 * (`safeParse`, `_zod.def`), and zod keeps its registry and config on `globalThis`, shared
 * between copies. pino (with sonic-boom, its serializers, redaction) and undici (imported by its
 * public entry only) are CommonJS files that Node would otherwise resolve, read and wrap one by
 * one on every start. Each is inlined whole and nothing is loaded from the installed copies at run
 * time (those may be other versions): pino's transports, which need its files on disk, are left
 * out (`pinoWithoutTransport`). Users meet them only through methods: the loggers topicbot gives
 * them are pino's (`log.info(...)`), topicbot's Pool never leaves the client, and a user's own
 * dispatcher (a MockAgent) is called through undici's public methods only. prom-client (with
 * @opentelemetry/api, which it requires) keeps one registry per bot, never the global one: a user's
 * own copy is not shared with, and `bot start` reads no file of the installed package.
 */
const INLINED = ["zod", "yaml", "eventemitter3", "pino", "undici", "prom-client"];
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
  plugins: [pinoWithoutTransport, yamlAsModules, undiciCookiesOwnHeaders],
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
  if (/[\u0080-\uffff]/.test(code)) writeFileSync(url, asciiOnly(code));
}

/** `code` with each non-ASCII character (left in comments by esbuild) written as `\uXXXX`. */
function asciiOnly(code) {
  // Without the `u` flag each UTF-16 unit (a surrogate too) is matched and escaped alone.
  return code.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

// Why (issue 17, start-up): V8 compiles the bundle on every start and Node 20 keeps no compile
// cache for ES modules. Each chunk that can run as CommonJS is written also as `chunk-X.cjs`, and
// `chunk-X.js` becomes a facade that takes the chunk's exports from dist/bundle/chunk-loader.js
// (scripts/chunk-loader.ts), which compiles the `.cjs` through vm.Script with a V8 code cache. The
// entries too (`cli.cjs` beside `cli.js`, ...): a converted file requires the chunks it imports
// from the loader, so Node's ES-module loader meets an entry's facade and not one facade per chunk
// (36 of the bundle's files for `bot start`, ~0.6 ms of CPU each, before; 4 now). The chunk graph and every
// importer stay as they are.
await convertChunks(result.metafile);

/**
 * A chunk's CommonJS code as the function expression the loader compiles (its WRAPPER and the
 * arguments it passes): written so, the file is the script's source as read, with no copy. The
 * wrapper shares the first line, as in Node's own CommonJS wrapper, so lines and the source map stay
 * right; esbuild's `"use strict"` stays the function's first statement: strict, as the ES module was.
 * A hash of the code follows the wrapper, in a comment: the loader names the chunk's cache file
 * with it, as V8 checks only a cache's source length (the chunk's name hashes the ES chunk, not
 * this conversion of it); `:import` after it marks code that `import()`s beyond the bundle.
 */
function wrapped(cjs, importing) {
  if (!cjs.startsWith('"use strict";'))
    throw new Error(
      'esbuild\'s CommonJS output does not start with "use strict": update scripts/bundle.mjs',
    );
  const code = asciiOnly(cjs);
  const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
  return `(function (exports, require, module, __filename, __dirname, __topicbotChunkUrl) {/*topicbot:${hash}${importing ? ":import" : ""}*/${code}\n})`;
}

/**
 * The exported bindings of an ES chunk that its code assigns after declaring them. A facade copies
 * each export once, when the chunk has run (`export const { a, b } = ...`): an ES module's export
 * is a live binding, so a chunk whose exported `let`/`var` changes later must stay an ES module.
 * A textual check on esbuild's output, erring towards "assigned" (which only keeps a chunk ESM).
 */
function reassignedExports(code) {
  // After the list, esbuild may put the inlined packages' license comments (`/*! ... */`).
  const list =
    /\nexport \{([^}]*)\};\s*(\/\*[\s\S]*?\*\/\s*)?(\/\/# sourceMappingURL=\S*\s*)?$/.exec(code);
  if (!list) {
    // A chunk whose one export is a value computed once (`export default require_undici();`).
    const onlyDefault = /\nexport default [^;\n]+;\s*(\/\/# sourceMappingURL=\S*\s*)?$/.exec(code);
    if (onlyDefault && code.indexOf("\nexport ") === onlyDefault.index) return [];
    return code.includes("\nexport ") ? ["(an export statement not understood)"] : [];
  }
  const locals = list[1]
    .split(",")
    .map((entry) => entry.trim().split(/\s+as\s+/)[0])
    .filter(Boolean);
  return locals.filter((local) => {
    const name = local.replace(/\$/g, "\\$");
    const assignments = code.match(
      new RegExp(
        `(^|[^.\\w$])${name}\\s*(=(?!=)|[-+*/%&|^]=|\\+\\+|--)|(\\+\\+|--)${name}\\b`,
        "gm",
      ),
    );
    const declared = new RegExp(`(var|let|const)\\s+${name}\\s*=(?!=)`).test(code);
    return (assignments?.length ?? 0) > (declared ? 1 : 0);
  });
}

/** The build's chunks (not entries): `dist/bundle/chunks/X.js`. */
function chunkOutputs(metafile) {
  return Object.keys(metafile.outputs).filter((f) => /^dist\/bundle\/chunks\/[\w-]+\.js$/.test(f));
}

/**
 * The entries the loader runs too: those that import (statically) nothing outside the bundle but
 * Node's built-ins, since the loader's `require` cannot load an ES-module package. `testing` stays
 * an ES module: it `import()`s vitest, which must come from the test runner's own module graph.
 */
function entryOutputs(metafile) {
  return Object.keys(ENTRIES)
    .filter((name) => name !== "testing")
    .map((name) => `dist/bundle/${name}.js`)
    .filter((file) =>
      metafile.outputs[file].imports.every(
        (i) => !i.external || i.kind === "dynamic-import" || i.path.startsWith("node:"),
      ),
    );
}

/**
 * Whether a file's code calls `import()` on anything but a literal relative path (a sibling chunk):
 * a package (`import("commander")`) or a computed URL (a user's plugin file). The loader runs such
 * a file through Node's CommonJS loader, where `import()` works on every Node 20.
 */
async function importsBeyondBundle(code) {
  // Comments say `import('...')` too (undici's JSDoc types): read the code without them.
  const { code: bare } = await transform(code, {
    format: "esm",
    minifyWhitespace: true,
    legalComments: "none",
    logLevel: "silent",
  });
  return /\bimport\((?!"\.\.?\/)/.test(bare);
}

/**
 * Converts the chunks (and entries) that can run under the loader and prints which did not, and
 * why. A chunk stays an ES module if it has top-level await (CommonJS has none), or imports a
 * chunk that stays an ES module (the loader's `require` cannot load one). One that `import()`s
 * anything but a sibling chunk keeps its `import()`s (`import()` throws inside vm.Script on Node
 * 20 before 20.12) and is marked for the loader to compile it through Node's CommonJS loader.
 */
async function convertChunks(metafile) {
  await build({
    absWorkingDir: fileURLToPath(root),
    entryPoints: { "chunk-loader": "scripts/chunk-loader.ts" },
    outdir: "dist/bundle",
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: true,
    logLevel: "warning",
  });
  const chunks = chunkOutputs(metafile);
  const outputs = [...chunks, ...entryOutputs(metafile)];
  const kept = new Map();
  /** Files whose `import()`s reach beyond the bundle: compiled by Node's CommonJS loader. */
  const importing = new Set();
  const converted = new Map();
  for (const chunk of outputs) {
    const url = new URL(chunk, root);
    const code = readFileSync(url, "utf8");
    const dynamic = metafile.outputs[chunk].imports.some(
      (i) => i.kind === "dynamic-import" && !chunks.includes(i.path),
    );
    if (dynamic || (await importsBeyondBundle(code))) importing.add(chunk);
    const reassigned = reassignedExports(code);
    if (reassigned.length > 0) {
      kept.set(chunk, `its code assigns its export(s) ${reassigned.join(", ")} again`);
      continue;
    }
    const banner = code.indexOf("\n");
    if (!code.slice(0, banner).includes("__topicbotCreateRequire"))
      throw new Error(`${chunk} does not start with the require banner: update scripts/bundle.mjs`);
    // The loader gives `require`; an empty first line keeps the chunk's source map right.
    writeFileSync(url, code.slice(banner));
    try {
      const out = await build({
        absWorkingDir: fileURLToPath(root),
        entryPoints: [chunk],
        outfile: chunk.replace(/\.js$/, ".cjs"),
        bundle: false,
        format: "cjs",
        platform: "node",
        target: "node20",
        // Siblings' `import()`s become `require`s; a file importing beyond the bundle keeps all.
        supported: { "dynamic-import": importing.has(chunk) },
        define: { "import.meta.url": "__topicbotChunkUrl" },
        sourcemap: true,
        write: false,
        logLevel: "silent",
      });
      const cjs = out.outputFiles.find((f) => f.path.endsWith(".cjs")).text;
      if (/\bimport\.meta\b|\bimport_meta\b/.test(cjs))
        throw new Error("uses import.meta beyond import.meta.url");
      converted.set(chunk, out.outputFiles);
    } catch (error) {
      kept.set(chunk, error.errors?.[0]?.text ?? error.message);
    } finally {
      writeFileSync(url, code);
    }
  }
  // A chunk importing one that stays an ES module stays one too, until nothing changes.
  for (let changed = true; changed;) {
    changed = false;
    for (const chunk of converted.keys()) {
      const esm = metafile.outputs[chunk].imports.find((i) => kept.has(i.path));
      if (!esm) continue;
      kept.set(chunk, `imports ${esm.path}, which stays an ES module`);
      converted.delete(chunk);
      changed = true;
    }
  }
  for (const [chunk, files] of converted) {
    for (const file of files)
      writeFileSync(
        file.path,
        file.path.endsWith(".cjs") ? wrapped(file.text, importing.has(chunk)) : file.text,
      );
    const entry = !chunk.startsWith("dist/bundle/chunks/");
    const base = chunk.slice(chunk.lastIndexOf("/") + 1, -".js".length);
    // The loader names a file by its path from the chunks' folder.
    const name = entry ? `../${base}` : base;
    const exports = metafile.outputs[chunk].exports;
    const own = exports.filter((e) => e !== "default");
    writeFileSync(
      new URL(chunk, root),
      [
        `// Facade of ${base}.cjs, which the chunk loader runs with a V8 code cache (scripts/bundle.mjs).`,
        `import { load as $topicbotLoad } from "${entry ? "./" : "../"}chunk-loader.js";`,
        `const $topicbotChunk = $topicbotLoad(${JSON.stringify(name)});`,
        ...(own.length > 0 ? [`export const { ${own.join(", ")} } = $topicbotChunk;`] : []),
        ...(exports.includes("default") ? ["export default $topicbotChunk.default;"] : []),
        "",
      ].join("\n"),
    );
    rmSync(new URL(`${chunk}.map`, root), { force: true });
  }
  const size = (chunk) => metafile.outputs[chunk].bytes;
  const kb = (bytes) => `${Math.round(bytes / 1024)} KB`;
  stdout.write(
    `chunks and entries run by the chunk loader: ${converted.size} of ${outputs.length} (${kb([...converted.keys()].reduce((n, c) => n + size(c), 0))}; without a code cache, as they import() beyond the bundle: ${[...importing].filter((c) => converted.has(c)).join(", ") || "none"})\n`,
  );
  for (const [chunk, why] of kept)
    stdout.write(`  stays an ES module: ${chunk} (${kb(size(chunk))}): ${why}\n`);
}
