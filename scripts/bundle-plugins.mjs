// esbuild plugins of scripts/bundle.mjs: the parts of inlined packages that stay the installed package's, loaded on use.
import { existsSync, readFileSync } from "node:fs";
import { sep } from "node:path";
import { URL, fileURLToPath } from "node:url";

const root = new URL("..", import.meta.url);

/**
 * zod's 62 non-English locales (366 KB, half of zod) are compiled on every start only because
 * `z.locales` (and `z.core.locales`) name them all. In the bundle each becomes a function that
 * loads that locale from the installed zod (its CommonJS file) when called: `z.locales.fr()` works
 * as before and costs nothing until used. English stays inlined: zod configures it at import.
 */
export const zodLocalesOnUse = {
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
export const pinoTransportOnUse = {
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
export const undiciOnUse = {
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
export const UNDICI_NO_H2 =
  "topicbot's bundled undici has no HTTP/2 client: its Pool is created without allowH2, so HTTP/2 should never be negotiated (pass your own undici dispatcher to use HTTP/2)";

/**
 * yaml ships CommonJS (`dist/`, its "node" export, what esbuild picks for Node) and ES modules
 * (`browser/`, the same code). esbuild wraps each CommonJS file in a function and cannot drop what
 * is unused, so the bundle takes the ES-module build. The two differ only where the CommonJS one
 * uses Node: a warning of `YAML.parse()` goes to `console.warn` rather than `process.emitWarning`
 * (topicbot calls `parseDocument`, which only collects warnings), `!!binary` gives a Uint8Array
 * rather than a Buffer (no config field takes binary), and the LOG_TOKENS / LOG_STREAM debug
 * variables are not read.
 */
export const yamlAsModules = {
  name: "yaml-as-modules",
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, () => {
      const file = new URL("node_modules/yaml/browser/index.js", root);
      if (!existsSync(file))
        throw new Error("yaml has no browser/index.js: update scripts/bundle-plugins.mjs");
      return { path: fileURLToPath(file) };
    });
  },
};

/** Whether `importer` is a file of the installed package `name`. */
const inPackage = (importer, name) => importer.includes(`${sep}node_modules${sep}${name}${sep}`);
