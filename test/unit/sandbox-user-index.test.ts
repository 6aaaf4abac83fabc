// The sandbox finds users by email and by name through indexes that stay right after renames, email changes, deactivation and removal.
import { describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { findUserByEmail } from "../../src/sandbox/emailVisibility.js";

describe("the sandbox's user indexes", () => {
  it("follow renames, email changes, deactivation, replacement and removal", async () => {
    const sandbox = await startSandbox();
    try {
      const { realm } = sandbox;
      const mia = realm.users.get(sandbox.user("mia").userId)!;
      const oldEmail = mia.email;
      expect(realm.userByEmail(oldEmail.toUpperCase())).toBe(mia);

      mia.email = "Mia.New@Example.com";
      expect(realm.userByEmail(oldEmail)).toBeUndefined();
      expect(realm.userByEmail("mia.new@example.com")).toBe(mia);
      expect(findUserByEmail(realm, undefined, "MIA.NEW@example.com")).toBe(mia);

      mia.fullName = "Mia Renamed";
      expect(realm.users.named("mia member")).toEqual([]);
      expect(realm.users.named("MIA RENAMED")).toEqual([mia]);
      expect(realm.mentionTargets.byName("mia renamed")).toBe(mia);

      // Deactivated users stay findable by email; mentions skip them.
      mia.isActive = false;
      expect(realm.userByEmail("mia.new@example.com")).toBe(mia);
      expect(realm.mentionTargets.byName("Mia Renamed")).toBeUndefined();
      expect(realm.mentionTargets.byId(mia.userId)).toBeUndefined();
      mia.isActive = true;

      // Namesakes: the first by ID is the one a mention names.
      const twin = realm.addUser({
        email: "twin@example.com",
        fullName: "Mia Renamed",
        password: "pw",
        role: 400,
        isBot: false,
        botType: null,
        botOwnerId: null,
      });
      expect(realm.users.named("mia renamed")).toEqual([mia, twin]);
      expect(realm.mentionTargets.byName("Mia Renamed")).toBe(mia);

      // A user replaced under the same ID, then removed: the old object no longer moves entries.
      const copy = { ...twin, email: "copy@example.com" };
      realm.users.set(twin.userId, copy);
      expect(realm.userByEmail("twin@example.com")).toBeUndefined();
      expect(realm.userByEmail("copy@example.com")).toBe(copy);
      twin.email = "stale@example.com";
      expect(realm.userByEmail("stale@example.com")).toBeUndefined();
      realm.users.delete(copy.userId);
      expect(realm.userByEmail("copy@example.com")).toBeUndefined();
      expect(realm.users.named("mia renamed")).toEqual([mia]);
    } finally {
      await sandbox.close();
    }
  });

  it("renders a mention of a renamed user by the new name only", async () => {
    const sandbox = await startSandbox();
    try {
      const { realm } = sandbox;
      const mia = realm.users.get(sandbox.user("mia").userId)!;
      const sender = realm.users.get(sandbox.user("max").userId)!;
      const general = realm.channelByName("general")!;
      mia.fullName = "Mia Two";
      const send = (content: string) =>
        realm.postMessage({ kind: "stream", sender, channel: general, topic: "t", content });
      const renamed = send("hi @**Mia Two**");
      expect(renamed.renderedContent).toContain(`data-user-id="${mia.userId}"`);
      expect([...(renamed.flags.get(mia.userId) ?? [])]).toContain("mentioned");
      expect(send("hi @**Mia Member**").renderedContent).not.toContain("user-mention");
    } finally {
      await sandbox.close();
    }
  });
});
