// Storage for plugins: the store interface and its backends.
export { createMemoryStore, memoryBackend, storeOver } from "./store.js";
export type { KeyValueStore, SetOptions, StoreBackend, StoredEntry } from "./store.js";
export { createFileStore, nodeFileOps, openFileBackend } from "./file.js";
export type { FileBackendOptions, FileOps } from "./file.js";
export { createStore, openBackend } from "./create.js";
export type { CreateStoreOptions, StorageConfig } from "./create.js";
