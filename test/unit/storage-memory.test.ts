import { describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/state/key-value/index.js";

describe("memory store", () => {
  it("stores JSON copies, lists and deletes keys", async () => {
    const store = createMemoryStore();
    const value = { n: 1, list: [1, 2] };
    await store.set("a", value);
    value.n = 2;
    expect(await store.get("a")).toEqual({ n: 1, list: [1, 2] });
    await store.set("b", "x");
    expect(await store.list()).toEqual(["a", "b"]);
    expect(await store.delete("a")).toBe(true);
    expect(await store.delete("a")).toBe(false);
    expect(await store.get("a")).toBeUndefined();
  });

  it("keeps namespaces apart", async () => {
    const store = createMemoryStore();
    const one = store.namespace("one");
    const two = store.namespace("two");
    await one.set("k", 1);
    await two.set("k", 2);
    expect(await one.get("k")).toBe(1);
    expect(await two.get("k")).toBe(2);
    expect(await store.list()).toEqual([]);
    expect(await one.list()).toEqual(["k"]);
  });

  it("expires entries after their ttl", async () => {
    let now = 1_000;
    const store = createMemoryStore(() => now);
    await store.set("session", { step: 1 }, { ttlMs: 500 });
    expect(await store.get("session")).toEqual({ step: 1 });
    now = 1_600;
    expect(await store.get("session")).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it("refuses undefined values", async () => {
    await expect(createMemoryStore().set("k", undefined)).rejects.toThrow(/use delete/);
  });
});
