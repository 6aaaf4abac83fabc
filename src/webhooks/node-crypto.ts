// Node's crypto module for the webhook checks, loaded by the first request that needs it rather than with topicbot.
import type * as NodeCryptoModule from "node:crypto";
import { createRequire } from "node:module";

type NodeCrypto = typeof NodeCryptoModule;
let loaded: NodeCrypto | undefined;

/**
 * `node:crypto`, required on the first call. It exists because auth.ts and deliveries.ts load with
 * every bot (the config's secrets and the bot's receiver import them), while only a webhook request
 * hashes: importing node:crypto costs ~2 ms of CPU on every `bot start` (issue 17, start-up).
 * Synchronous, so the checks stay synchronous.
 */
export function nodeCrypto(): NodeCrypto {
  loaded ??= createRequire(import.meta.url)("node:crypto") as NodeCrypto;
  return loaded;
}
