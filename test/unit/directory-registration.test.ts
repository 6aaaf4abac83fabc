import { describe, expect, it } from "vitest";
import type { ApiClient } from "../../src/client/client.js";
import { Directory, type RegisteredUsers } from "../../src/runtime/context/directory.js";
import { apiUser } from "../helpers/fixtures.js";

// The directory's first user list comes from the registration (`realm_users`), not from a
// GET /users before the first answer; a user missing from it is looked up once more.

const member = apiUser;

/** A directory over an API whose GET /users answers `server()` and counts its calls. */
function directoryWith(registration: RegisteredUsers | undefined, server: () => unknown[]) {
  let clock = 0;
  const calls = { list: 0 };
  const api = {
    users: {
      list: () => {
        calls.list++;
        return Promise.resolve({ members: server() });
      },
    },
  } as unknown as ApiClient;
  const directory = new Directory(api, { now: () => clock, registration: () => registration });
  return { directory, calls, advance: (ms: number) => (clock += ms) };
}

describe("the directory's user list", () => {
  it("is the registration's users, active and not, without asking GET /users", async () => {
    const registration = {
      queue_id: "q",
      realm_users: [member(1), member(2, { is_bot: true })],
      realm_non_active_users: [member(3, { is_active: false })],
    };
    const { directory, calls } = directoryWith(registration, () => []);
    const users = await directory.users();
    expect(users.map((u) => [u.userId, u.isBot, u.isActive])).toEqual([
      [1, false, true],
      [2, true, true],
      [3, false, false],
    ]);
    expect(calls.list).toBe(0);
  });

  it("asks GET /users once a registration is used up (after a realm_user event), or has no users", async () => {
    const registration = { queue_id: "q", realm_users: [member(1)] };
    const seeded = directoryWith(registration, () => [member(1), member(4)]);
    await seeded.directory.users();
    seeded.directory.invalidate();
    expect((await seeded.directory.users()).map((u) => u.userId)).toEqual([1, 4]);
    expect(seeded.calls.list).toBe(1);

    const bare = directoryWith({ queue_id: "q" }, () => [member(5)]);
    expect((await bare.directory.users()).map((u) => u.userId)).toEqual([5]);
    expect(bare.calls.list).toBe(1);
  });

  it("asks GET /users after a realm_user event that came before any list was needed", async () => {
    const registration = { queue_id: "q", realm_users: [member(1)] };
    const { directory, calls } = directoryWith(registration, () => [member(1), member(7)]);
    directory.invalidate();
    expect((await directory.users()).map((u) => u.userId)).toEqual([1, 7]);
    expect(calls.list).toBe(1);
  });

  it("asks GET /users when the registration's users are not what the API describes", async () => {
    const { directory, calls } = directoryWith(
      { queue_id: "q", realm_users: [{ user_id: "one" }] },
      () => [member(1)],
    );
    expect((await directory.users()).map((u) => u.userId)).toEqual([1]);
    expect(calls.list).toBe(1);
  });

  it("reads the list again for a user missing from the registration's (joined since)", async () => {
    const { directory, calls } = directoryWith({ queue_id: "q", realm_users: [member(1)] }, () => [
      member(1),
      member(6),
    ]);
    const users = await directory.usersIncluding(6);
    expect(users.map((u) => u.userId)).toEqual([1, 6]);
    expect(calls.list).toBe(1);
    // Present now: no further request.
    await directory.usersIncluding(6);
    expect(calls.list).toBe(1);
  });

  it("asks again for a missing user at most once a second (a system bot is in no list)", async () => {
    const { directory, calls, advance } = directoryWith(undefined, () => [member(1)]);
    await directory.users();
    expect(calls.list).toBe(1);
    // Concurrent misses within the second share the list read just now.
    await Promise.all([directory.usersIncluding(99), directory.usersIncluding(99)]);
    expect(calls.list).toBe(1);
    advance(1_000);
    await Promise.all([directory.usersIncluding(99), directory.usersIncluding(99)]);
    expect(calls.list).toBe(2);
  });
});
