// undici's keep-alive Pool, loaded from its own files: `import "undici"` also evaluates fetch, WebSocket,
// cookies, the cache and the proxy agents (about 70 CommonJS files, the largest share of `bot start`'s
// start-up), none of which the client uses. The class is the one undici's index exports, and the
// request API (`request`, `dispatch`, ...) goes onto the Dispatcher prototype exactly as undici's index
// puts it there (the same assignment, so loading both is harmless). The paths are undici 7's layout: a
// move in an update fails every client test and `test/e2e/cli-start-lazy.test.ts` at once.
import { createRequire } from "node:module";
import type { Pool as UndiciPool } from "undici";

const require = createRequire(import.meta.url);
Object.assign(
  (require("undici/lib/dispatcher/dispatcher.js") as { prototype: object }).prototype,
  require("undici/lib/api/index.js") as object,
);

export const Pool = require("undici/lib/dispatcher/pool.js") as typeof UndiciPool;
