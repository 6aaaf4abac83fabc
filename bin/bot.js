#!/usr/bin/env node
// The `bot` (and `topicbot`) executable: runs the compiled CLI.
import { main } from "../dist/src/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
