// The key-value store plugins get: JSON values, optional expiry, one namespace per plugin.

/** Options of `set`. */
export interface SetOptions {
  /** Milliseconds until the entry expires and reads stop returning it. */
  ttlMs?: number;
}

/**
 * A key-value store with JSON values. Every backend (memory, file, and later networked ones)
 * implements this interface; plugins only ever see it.
 */
export interface KeyValueStore {
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Whether `key` holds a value (an expired one does not count). */
  has(key: string): Promise<boolean>;
  set(key: string, value: unknown, options?: SetOptions): Promise<void>;
  /** Removes the key; resolves true when it existed. */
  delete(key: string): Promise<boolean>;
  /**
   * The value under `key` with the time it has left (`ttlMs`, absent for none), or undefined: what
   * copying an entry elsewhere needs to keep its expiry. Optional for stores of one's own.
   */
  entry?<T = unknown>(key: string): Promise<{ value: T; ttlMs?: number } | undefined>;
  /** Keys starting with `prefix` (all keys without it), sorted. */
  list(prefix?: string): Promise<string[]>;
  /** A view of this store whose keys all live under `name`. */
  namespace(name: string): KeyValueStore;
  /** Writes anything pending to durable storage. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The raw backend under namespaced views: flat keys, JSON-compatible values, expiry times. */
export interface StoreBackend {
  read(key: string): Promise<StoredEntry | undefined>;
  write(key: string, entry: StoredEntry): Promise<void>;
  remove(key: string): Promise<boolean>;
  keys(): Promise<string[]>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface StoredEntry {
  value: unknown;
  /** Epoch milliseconds after which the entry is gone; absent for no expiry. */
  expiresAt?: number;
}

const SEPARATOR = "\u0000";

/** `store.entry(key)`, or for a store without it the value alone (its time left unknown). */
export async function readEntry<T>(
  store: KeyValueStore,
  key: string,
): Promise<{ value: T; ttlMs?: number } | undefined> {
  if (store.entry) return store.entry<T>(key);
  const value = await store.get<T>(key);
  return value === undefined ? undefined : { value };
}

/** Builds the namespaced, expiring store view over any backend. */
export function storeOver(
  backend: StoreBackend,
  now: () => number = Date.now,
  prefix = "",
): KeyValueStore {
  const full = (key: string): string => `${prefix}${key}`;
  return {
    async get<T>(key: string) {
      const entry = await backend.read(full(key));
      if (!entry) return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt <= now()) {
        await backend.remove(full(key));
        return undefined;
      }
      return structuredClone(entry.value) as T;
    },
    async has(key) {
      const entry = await backend.read(full(key));
      return entry !== undefined && (entry.expiresAt === undefined || entry.expiresAt > now());
    },
    async set(key, value, options = {}) {
      if (value === undefined)
        throw new TypeError(`storage: cannot store undefined under "${key}"; use delete()`);
      const json = JSON.parse(JSON.stringify(value)) as unknown;
      const entry: StoredEntry = { value: json };
      if (options.ttlMs !== undefined) entry.expiresAt = now() + options.ttlMs;
      await backend.write(full(key), entry);
    },
    delete: (key) => backend.remove(full(key)),
    async entry<T>(key: string) {
      const entry = await backend.read(full(key));
      if (!entry) return undefined;
      const value = structuredClone(entry.value) as T;
      if (entry.expiresAt === undefined) return { value };
      const ttlMs = entry.expiresAt - now();
      return ttlMs > 0 ? { value, ttlMs } : undefined;
    },
    async list(keyPrefix = "") {
      const all = await backend.keys();
      const wanted = full(keyPrefix);
      const out: string[] = [];
      for (const key of all) {
        if (!key.startsWith(wanted)) continue;
        const rest = key.slice(prefix.length);
        if (rest.includes(SEPARATOR)) continue; // belongs to a nested namespace
        const entry = await backend.read(key);
        if (entry && (entry.expiresAt === undefined || entry.expiresAt > now())) out.push(rest);
      }
      return out.sort();
    },
    namespace: (name) => {
      if (name.includes(SEPARATOR))
        throw new TypeError("storage: namespace names cannot contain NUL");
      return storeOver(backend, now, `${prefix}${name}${SEPARATOR}`);
    },
    flush: () => backend.flush(),
    close: () => backend.close(),
  };
}

/** A backend in process memory: fast, and gone when the process ends. */
export function memoryBackend(): StoreBackend {
  const data = new Map<string, StoredEntry>();
  return {
    read: async (key) => data.get(key),
    write: async (key, entry) => void data.set(key, entry),
    remove: async (key) => data.delete(key),
    keys: async () => [...data.keys()],
    flush: async () => undefined,
    close: async () => undefined,
  };
}

/** Stores made by `createMemoryStore` (their delivery state need not be copied into keys). */
const memoryStores = new WeakSet<KeyValueStore>();

/** A store in process memory. */
export function createMemoryStore(now?: () => number): KeyValueStore {
  const store = storeOver(memoryBackend(), now);
  memoryStores.add(store);
  return store;
}

/** Whether `store` is a store `createMemoryStore` made (not a namespace of one). */
export const isMemoryStore = (store: KeyValueStore): boolean => memoryStores.has(store);
