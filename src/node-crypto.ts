// Node's crypto module, loaded by the first call that needs it rather than with topicbot.
import type * as NodeCryptoModule from "node:crypto";
import { createRequire } from "node:module";

type NodeCrypto = typeof NodeCryptoModule;
let loaded: NodeCrypto | undefined;

/**
 * `node:crypto`, required on the first call. It exists because importing node:crypto costs ~2 ms
 * of CPU on every `bot start` (issue 17, start-up) while only some paths hash or draw random bytes
 * (a webhook check, an upload's multipart boundary, cluster mode's webhook deduplication).
 * Synchronous, so the callers stay synchronous, and no `import()`: that keeps the chunks holding
 * the callers runnable by the bundle's chunk loader (scripts/chunk-loader.ts), where `import()`
 * is not available.
 */
export function nodeCrypto(): NodeCrypto {
  loaded ??= createRequire(import.meta.url)("node:crypto") as NodeCrypto;
  return loaded;
}
