// Posts outside a handled message made exactly once by a key the bot gives (adapter.once): journaled in the plugin's storage, read back after a crash.
import { AsyncLocalStorage } from "node:async_hooks";
import type { ApiClient } from "../client/client.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import { narrowOf, type ZulipThread } from "./thread-id.js";

/** What is journaled per keyed post: when its send began, and the message ID once it is known. */
interface PostRecord {
  at: number;
  id?: number;
}

/** How long a keyed post is remembered (a key used again later posts again). */
const REMEMBER_MS = 30 * 24 * 3_600_000;
/** The bot's recent messages in the thread a read-back looks through. */
const READ_BACK = 100;

/**
 * Posts made inside `run(key, work)` are each journaled under `key` and their number in it: an
 * intent before the send, the message ID after. The same key run again (a cron job retried, a
 * process restarted) returns the recorded message instead of posting; an intent without an ID
 * (the process died between the send and the record) is looked for among the bot's recent
 * messages in that thread with the same content, sent since the intent, before it is sent again.
 */
export class KeyedPosts {
  readonly #scope = new AsyncLocalStorage<{ key: string; n: number }>();
  readonly #store: KeyValueStore;
  readonly #api: ApiClient;
  readonly #me: () => number | undefined;

  constructor(store: KeyValueStore, api: ApiClient, me: () => number | undefined) {
    this.#store = store;
    this.#api = api;
    this.#me = me;
  }

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (key === "") throw new TypeError("chat-sdk: once(key, ...) needs a non-empty key");
    return this.#scope.run({ key, n: 0 }, work);
  }

  /** True inside `run`: the next post is keyed. */
  get active(): boolean {
    return this.#scope.getStore() !== undefined;
  }

  /** Sends through `send` once per (key, post number); returns the message ID. */
  async post(thread: ZulipThread, content: string, send: () => Promise<number>): Promise<number> {
    const scope = this.#scope.getStore();
    if (!scope) return send();
    const slot = `${scope.key}#${scope.n++}`;
    const record = await this.#store.get<PostRecord>(slot);
    if (record?.id !== undefined) return record.id;
    if (record) {
      const found = await this.#readBack(thread, content, record.at);
      if (found !== undefined) {
        await this.#store.set(slot, { ...record, id: found }, { ttlMs: REMEMBER_MS });
        return found;
      }
    }
    const at = Date.now();
    await this.#store.set(slot, { at }, { ttlMs: REMEMBER_MS });
    const id = await send();
    await this.#store.set(slot, { at, id }, { ttlMs: REMEMBER_MS });
    return id;
  }

  /** The bot's message in `thread` with this content sent since `at` (a second early for clocks). */
  async #readBack(thread: ZulipThread, content: string, at: number): Promise<number | undefined> {
    const me = this.#me();
    if (me === undefined) return undefined;
    const narrow = narrowOf(thread);
    const { messages } = await this.#api.messages.list({
      anchor: "newest",
      num_before: READ_BACK,
      num_after: 0,
      narrow: [...narrow, { operator: "sender", operand: me }],
      apply_markdown: false,
    });
    return messages.find(
      (m) => m.content.trimEnd() === content.trimEnd() && m.timestamp * 1000 >= at - 1_000,
    )?.id;
  }
}
