// Node's crypto module for the webhook checks, loaded by the first request that needs it (src/node-crypto.ts).
export { nodeCrypto } from "../node-crypto.js";
