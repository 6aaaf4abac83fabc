// Where delivery state lives, chosen in one place from the storage config.
import { isAbsolute, resolve } from "node:path";
import type { StorageConfig } from "../key-value/create.js";
import type { KeyValueStore } from "../key-value/store.js";
import { FileDeliveryStore } from "./file.js";
import { KeyValueDeliveryStore } from "./key-value.js";
import { memoryDeliveryOf } from "./memory.js";
import type { DeliveryStore } from "./store.js";

/** The namespace of the bot's storage that holds runtime state (and held delivery state before the journal). */
export const RUNTIME_NAMESPACE = "topicbot:runtime";

export interface OpenDeliveryStoreOptions {
  /** Directory relative storage paths are resolved against (the config file's). */
  baseDir?: string;
  /** Incoming messages whose replies are remembered (`replyMemory`). Default 500. */
  capacity?: number;
  /** Told of a damaged journal recovered, or a record cut short dropped (a logger's `warn`). */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** The journal file that goes with a file store: `<storage file>.delivery.jsonl`. */
export function journalPath(storagePath: string, baseDir = process.cwd()): string {
  const path = isAbsolute(storagePath) ? storagePath : resolve(baseDir, storagePath);
  return `${path}.delivery.jsonl`;
}

/**
 * The delivery store a storage config selects: `memory` keeps it in process memory beside the
 * bot's memory store (`MemoryDeliveryStore`), `redis` in its keys; `file` keeps a journal beside the store file (crash-safe, see
 * docs/reliability.md). A new backend (Redis) is one more case here.
 *
 * @example
 * const storage = await createStore(config.storage, { baseDir });
 * const delivery = await openDeliveryStore(config.storage, storage, { baseDir });
 * const bot = createBot({ ..., storage, delivery });
 */
export async function openDeliveryStore(
  config: StorageConfig,
  storage: KeyValueStore,
  options: OpenDeliveryStoreOptions = {},
): Promise<DeliveryStore> {
  const runtime = storage.namespace(RUNTIME_NAMESPACE);
  switch (config.type) {
    case "memory":
      // Beside the memory store, in memory too: no copies of records, no writes.
      return memoryDeliveryOf(storage, options.capacity);
    case "redis":
      // Per-key writes: O(1) per reply, and shared by every process using it.
      return new KeyValueDeliveryStore(runtime, options.capacity);
    case "file":
      return FileDeliveryStore.open({
        path: journalPath(config.path, options.baseDir),
        capacity: options.capacity,
        fsync: config.fsync,
        legacy: runtime,
        legacyFile: config.path,
        onDamage: config.onDamage,
        warn: options.warn,
      });
  }
}
