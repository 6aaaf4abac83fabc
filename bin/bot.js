#!/usr/bin/env node
// The `bot` (and `topicbot`) executable: runs the built CLI (dist/bundle/cli.js, made by scripts/bundle.mjs).
import module from "node:module";

// Node 22.1 and later keep V8's compiled code of the ES modules on disk, so a later start skips
// compiling them (start-up time, issue 17); Node 20 has no such cache and skips this. The bundle's
// chunks that run as CommonJS are cached on every version by dist/bundle/chunk-loader.js
// (scripts/chunk-loader.ts), in a folder of its own beside Node's: Node's cache does not cover them.
module.enableCompileCache?.();

const { main } = await import("../dist/bundle/cli.js");
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
