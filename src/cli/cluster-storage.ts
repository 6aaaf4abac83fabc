// Where a bot's storage lives: in cluster mode the cluster's Redis, so that `bot start` and `bot check` read the same place.
import { ConfigError } from "../config/errors.js";
import type { StorageSettings } from "../config/schema.js";

/**
 * The storage a bot uses: `storage` as configured, except in cluster mode (`clusterUrl` set),
 * where the default (memory) becomes the cluster's Redis and a file is refused (`file` names
 * the config file in the error).
 */
export function clusterStorage(
  storage: StorageSettings,
  clusterUrl: string | undefined,
  file: string,
): StorageSettings {
  if (!clusterUrl || storage.type === "redis") return storage;
  if (storage.type === "memory") return { type: "redis", url: clusterUrl };
  throw new ConfigError(
    file,
    "storage",
    "cluster mode shares storage through Redis; use storage: { type: redis, url: ... } or leave storage out",
  );
}
