// esbuild plugins of scripts/bundle.mjs: how inlined packages are compiled in (yaml as ES modules, pino without its transports, undici's cookies without Node's own undici).
import { existsSync, readFileSync } from "node:fs";
import { sep } from "node:path";
import { URL, fileURLToPath } from "node:url";

const root = new URL("..", import.meta.url);

/**
 * pino's transports run in a worker thread that loads pino's own files by path (`lib/worker.js`,
 * thread-stream's worker), which a bundle cannot hold. topicbot's logger writes to a stream and
 * never calls `pino.transport()` (nor passes the `transport` option; users get loggers, not pino),
 * so the bundled pino's `transport` is a stand-in that throws an error naming the cause, rather than
 * loading the installed pino's file (which may be another version than the one inlined).
 */
export const pinoWithoutTransport = {
  name: "pino-without-transport",
  setup(build) {
    build.onResolve({ filter: /^\.\/(lib\/)?transport$/ }, (args) =>
      inPackage(args.importer, "pino")
        ? { path: "pino-transport", namespace: "pino-without-transport" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "pino-without-transport" }, () => ({
      contents: `module.exports = function transport() {
  throw new Error(${JSON.stringify(PINO_NO_TRANSPORT)});
};`,
      loader: "js",
    }));
  },
};

/** The error topicbot's bundled pino throws if its transports are ever called. */
export const PINO_NO_TRANSPORT =
  "topicbot's bundled pino has no transports (they load pino's files in a worker thread): topicbot's loggers write to a stream; use your own pino for pino.transport()";

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

/**
 * undici's cookie helpers (`getCookies`, `setCookie`, ...) take undici's own `Headers` and Node's
 * global one, and read `globalThis.Headers` for that when undici's index is imported. That global is
 * a lazy getter: the first read loads Node's own copy of undici (node:internal/deps/undici, ~12 ms
 * of CPU) and compiles its WebAssembly HTTP parser beside the bundled one: about 20 ms of a fresh
 * process's CPU, paid by every `bot start` for helpers topicbot never calls (nor hands to users:
 * its Pool never leaves the client). The bundled cookies module takes undici's own `Headers` only;
 * the rest of undici is compiled in unchanged. A/B in bench/README.md ("Machinery").
 */
export const undiciCookiesOwnHeaders = {
  name: "undici-cookies-own-headers",
  setup(build) {
    build.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]web[\\/]cookies[\\/]index\.js$/ }, (args) => {
      const code = readFileSync(args.path, "utf8");
      if (!code.includes(GLOBAL_HEADERS_CHECK))
        throw new Error(
          `undici's cookies/index.js no longer reads ${GLOBAL_HEADERS_CHECK}: update scripts/bundle-plugins.mjs`,
        );
      return { contents: code.replace(GLOBAL_HEADERS_CHECK, "[Headers]"), loader: "js" };
    });
  },
};

/** The expression of undici's cookies/index.js that reads Node's global `Headers`. */
const GLOBAL_HEADERS_CHECK = "[Headers, globalThis.Headers].filter(Boolean)";

/** Whether `importer` is a file of the installed package `name`. */
const inPackage = (importer, name) => importer.includes(`${sep}node_modules${sep}${name}${sep}`);
