// undici's keep-alive Pool, imported from its own files: `import "undici"` also evaluates fetch, WebSocket,
// cookies, the cache and the proxy agents (about 70 CommonJS files, the largest share of `bot start`'s
// start-up), none of which the client uses. The class is the one undici's index exports, and the
// request API (`request`, `dispatch`, ...) goes onto the Dispatcher prototype exactly as undici's index
// puts it there (the same assignment, so loading both is harmless). The imports are static so that the
// published bundle compiles these files into its chunks (scripts/bundle.mjs) instead of Node loading
// ~30 files one by one. The paths are undici 7's layout: a move in an update fails every client test
// and `test/e2e/cli-start-lazy.test.ts` at once.
import type { Pool as UndiciPool } from "undici";
// @ts-expect-error -- undici ships no declarations for its lib/ files; typed below from "undici"'s own.
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
// @ts-expect-error -- as above.
import requestApi from "undici/lib/api/index.js";
// @ts-expect-error -- as above.
import PoolClass from "undici/lib/dispatcher/pool.js";

Object.assign((Dispatcher as { prototype: object }).prototype, requestApi as object);

export const Pool = PoolClass as typeof UndiciPool;
