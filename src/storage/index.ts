// Storage for plugins: the store interface and its backends.
export { createMemoryStore, memoryBackend, storeOver } from "./store.js";
export type { KeyValueStore, SetOptions, StoreBackend, StoredEntry } from "./store.js";
