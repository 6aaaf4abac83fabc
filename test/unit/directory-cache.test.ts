// The directory fetches users one by one as needed, caches them, and applies realm_user events in place.
import { describe, expect, it } from "vitest";
import type { ApiClient } from "../../src/client/client.js";
import { ApiError } from "../../src/client/errors.js";
import { Directory } from "../../src/context/directory.js";
import { apiUser } from "../helpers/fixtures.js";

/** A directory over a fake API holding `users`, counting each kind of call. */
function directoryOver(users: ReturnType<typeof apiUser>[], keeper: { current?: object } = {}) {
  let clock = 0;
  const calls = { get: 0, byEmail: 0, list: 0 };
  const pending: (() => void)[] = [];
  let hold = false;
  const answer = <T>(value: () => T): Promise<T> =>
    new Promise((resolve, reject) => {
      const settle = () => {
        try {
          resolve(value());
        } catch (error) {
          reject(error);
        }
      };
      if (hold) pending.push(settle);
      else settle();
    });
  const noSuchUser = () =>
    new ApiError({
      code: "BAD_REQUEST",
      status: 400,
      msg: "No such user",
      extra: {},
      endpoint: "GET /users/{user_id}",
    });
  const api = {
    users: {
      get: ({ user_id }: { user_id: number }) => {
        calls.get++;
        return answer(() => {
          const user = users.find((u) => u.user_id === user_id);
          if (!user) throw noSuchUser();
          return { user: { ...user } };
        });
      },
      getByEmail: ({ email }: { email: string }) => {
        calls.byEmail++;
        return answer(() => {
          const user = users.find((u) => u.email === email);
          if (!user) throw noSuchUser();
          return { user: { ...user } };
        });
      },
      list: () => {
        throw new Error("the directory never asks for the users' full objects");
      },
    },
    call: () => {
      calls.list++;
      return answer(() => ({ members: users.map((u) => ({ ...u })) }));
    },
  } as unknown as ApiClient;
  const directory = new Directory(api, {
    now: () => clock,
    keptBy: () => keeper.current,
  });
  return {
    directory,
    calls,
    advance: (ms: number) => (clock += ms),
    /** Holds answers until `release()`. */
    hold: () => (hold = true),
    release: () => {
      hold = false;
      for (const settle of pending.splice(0)) settle();
    },
    /** Answers the oldest held call only. */
    releaseFirst: () => pending.shift()?.(),
  };
}

const queue = { current: {} };

describe("the directory's users", () => {
  it("fetches a user it does not know by ID, once for concurrent callers, and keeps them", async () => {
    const { directory, calls } = directoryOver([apiUser(5), apiUser(6)], { current: {} });
    expect(directory.known(5)).toBeUndefined();
    const [a, b] = await Promise.all([directory.user(5), directory.user(5)]);
    expect(a).toMatchObject({ userId: 5, fullName: "User 5" });
    expect(b).toBe(a);
    expect(calls.get).toBe(1);
    expect(directory.known(5)).toBe(a);
    await directory.user(5);
    expect(calls).toEqual({ get: 1, byEmail: 0, list: 0 });
    expect(await directory.user(99)).toBeUndefined();
  });

  it("applies a realm_user update to the one user in place, without a fetch", async () => {
    const { directory, calls } = directoryOver([apiUser(5), apiUser(6)], { current: {} });
    await directory.user(5);
    await directory.user(6);
    directory.onRealmUser({ op: "update", person: { user_id: 5, full_name: "Five", role: 200 } });
    directory.onRealmUser({ op: "update", person: { user_id: 5, new_email: "five@example.com" } });
    directory.onRealmUser({ op: "update", person: { user_id: 5, timezone: "Asia/Tokyo" } });
    expect(directory.known(5)).toMatchObject({
      fullName: "Five",
      role: "administrator",
      email: "five@example.com",
      timezone: "Asia/Tokyo",
    });
    expect(directory.known(6)).toMatchObject({ fullName: "User 6", role: "member" });
    expect(await directory.byEmail("five@example.com")).toMatchObject({ userId: 5 });
    directory.onRealmUser({ op: "update", person: { user_id: 6, is_active: false } });
    expect(directory.known(6)?.isActive).toBe(false);
    expect(calls).toEqual({ get: 2, byEmail: 0, list: 0 });
  });

  it("adds a joiner from the event, drops a removed user and fetches them again when asked", async () => {
    const users = [apiUser(5)];
    const { directory, calls } = directoryOver(users, { current: {} });
    directory.onRealmUser({ op: "add", person: apiUser(7, { full_name: "Zoe" }) });
    expect(await directory.user(7)).toMatchObject({ fullName: "Zoe" });
    await directory.user(5);
    directory.onRealmUser({ op: "remove", person: { user_id: 5 } });
    expect(directory.known(5)).toBeUndefined();
    await directory.user(5);
    expect(calls.get).toBe(2);
  });

  it("applies an update that arrives while the user is being fetched", async () => {
    const { directory, hold, release } = directoryOver([apiUser(5)], { current: {} });
    hold();
    const fetched = directory.user(5);
    directory.onRealmUser({ op: "update", person: { user_id: 5, full_name: "Renamed" } });
    release();
    expect(await fetched).toMatchObject({ fullName: "Renamed" });
    expect(directory.known(5)).toMatchObject({ fullName: "Renamed" });
  });

  it("does not cache a user fetched under an earlier queue, nor let that fetch end a newer one", async () => {
    const keeper: { current?: object } = { current: {} };
    const { directory, calls, hold, release, releaseFirst } = directoryOver([apiUser(5)], keeper);
    hold();
    const old = directory.user(5);
    keeper.current = {};
    const fresh = directory.user(5);
    releaseFirst();
    await old;
    // The newer fetch is still the one to share (old code: the old one's end dropped it).
    const shared = directory.user(5);
    expect(calls.get).toBe(2);
    release();
    expect(await shared).toBe(await fresh);
    await directory.user(5);
    expect(calls.get).toBe(2);
  });

  it("trusts nothing from an earlier event queue, and users only for a while without one", async () => {
    const keeper: { current?: object } = { current: {} };
    const { directory, calls, advance } = directoryOver([apiUser(5)], keeper);
    await directory.user(5);
    advance(3_600_000);
    await directory.user(5);
    expect(calls.get).toBe(1);
    keeper.current = {}; // a new queue: events in between were lost
    expect(directory.known(5)).toBeUndefined();
    await directory.user(5);
    expect(calls.get).toBe(2);
    keeper.current = undefined; // no events at all: 30 seconds
    await directory.user(5);
    advance(29_000);
    await directory.user(5);
    expect(calls.get).toBe(3);
    advance(1_000);
    await directory.user(5);
    expect(calls.get).toBe(4);
  });

  it("finds a user by email through GET /users/{email}, then from the cache", async () => {
    const { directory, calls } = directoryOver([apiUser(5)], queue);
    expect(await directory.byEmail("nobody@example.com")).toBeUndefined();
    expect(await directory.byEmail("u5@example.com")).toMatchObject({ userId: 5 });
    expect(await directory.byEmail(" U5@EXAMPLE.COM")).toMatchObject({ userId: 5 });
    expect(directory.known(5)).toBeDefined();
    expect(calls.byEmail).toBe(2);
  });

  it("reads the names once for mentions without an ID, then keeps them from events", async () => {
    const users = [apiUser(5, { full_name: "Sam" }), apiUser(6, { full_name: "Mia" })];
    const { directory, calls } = directoryOver(users, { current: {} });
    expect(await directory.byMention("mia")).toMatchObject({ userId: 6 });
    expect(await directory.byMention("Sam")).toMatchObject({ userId: 5 });
    expect(await directory.byMention("Nobody")).toBeUndefined();
    // A namesake joins: the mention is now ambiguous, with no second read of the names.
    directory.onRealmUser({ op: "add", person: apiUser(8, { full_name: "Sam" }) });
    await expect(directory.byMention("Sam")).rejects.toMatchObject({
      name: "AmbiguousNameError",
      candidates: [{ userId: 5 }, { userId: 8 }],
    });
    // A rename moves the name; the old one finds no one.
    directory.onRealmUser({ op: "update", person: { user_id: 6, full_name: "Maya" } });
    expect(await directory.byMention("Maya")).toMatchObject({ userId: 6 });
    expect(await directory.byMention("Mia")).toBeUndefined();
    // The ID form never needs the names.
    expect(await directory.byMention("whatever", 5)).toMatchObject({ userId: 5 });
    expect(calls.list).toBe(1);
  });
});
