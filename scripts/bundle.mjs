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
 * between copies.
 */
const INLINED = ["zod", "yaml", "eventemitter3"];
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
  // The inlined CommonJS packages (yaml, eventemitter3) call `require` for Node's built-ins.
  banner: {
    js: 'import { createRequire as __topicbotCreateRequire } from "node:module"; const require = __topicbotCreateRequire(import.meta.url);',
  },
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
  plugins: [zodLocalesOnUse],
});

// Which source modules each output file holds: test/e2e/cli-start-lazy.test.ts reads it to tell
// what `bot start` loaded. Beside the bundle, not shipped.
writeFileSync(new URL("dist/bundle-meta.json", root), JSON.stringify(result.metafile));
