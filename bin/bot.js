#!/usr/bin/env node
// The `bot` (and `topicbot`) executable: runs the built CLI (dist/bundle/cli.js, scripts/bundle.mjs).
import { main } from "../dist/bundle/cli.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
