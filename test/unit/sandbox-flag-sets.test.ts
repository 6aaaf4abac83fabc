import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagSet, withFlag, withoutFlag } from "../../src/sandbox/flagSets.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { sendToChannel } from "../../src/sandbox/send.js";
import { updateFlags } from "../../src/sandbox/routes/narrow.js";
import type { StoredMessage } from "../../src/sandbox/model.js";

describe("sandbox flag sets", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 30 });
  });
  afterAll(() => sandbox.close());

  const post = (content: string): StoredMessage => {
    const { realm } = sandbox;
    return sendToChannel(realm, {
      sender: realm.users.get(sandbox.user("mia").userId)!,
      channel: realm.channelByName("general")!,
      topic: "flags",
      content,
    }).message;
  };

  it("shares one set per combination of flags, not one per user per stored message", () => {
    const messages = Array.from({ length: 50 }, (_, i) => post(`message ${i}`));
    const rows = messages.flatMap((m) => [...m.flags.values()]);
    expect(rows.length).toBeGreaterThanOrEqual(100);
    // One object per distinct combination in all of history (here: no flags, and maybe `read`).
    const combinations = new Set(rows.map((flags) => [...flags].join(",")));
    expect(combinations.size).toBeLessThanOrEqual(2);
    expect(new Set(rows).size).toBe(combinations.size);
  });

  it("changing one user's flags on one message leaves other messages and users alone", () => {
    const { realm } = sandbox;
    const olivia = realm.users.get(sandbox.user("olivia").userId)!;
    const [first, second] = [post("one"), post("two")];
    const before = first.flags.get(olivia.userId);
    expect(before).toBe(second.flags.get(olivia.userId));

    expect(updateFlags(realm, olivia, [first], "add", "starred")).toEqual([first.id]);
    expect([...first.flags.get(olivia.userId)!]).toEqual(["starred"]);
    expect(second.flags.get(olivia.userId)!.has("starred")).toBe(false);
    expect(before!.has("starred")).toBe(false);
    for (const [userId, flags] of first.flags)
      if (userId !== olivia.userId) expect(flags.has("starred")).toBe(false);

    expect(updateFlags(realm, olivia, [first], "remove", "starred")).toEqual([first.id]);
    expect(first.flags.get(olivia.userId)).toBe(second.flags.get(olivia.userId));
  });

  it("lists flags in the server's order, whatever order they were added in", () => {
    expect([...flagSet(["mentioned", "read", "starred"])]).toEqual([
      "read",
      "starred",
      "mentioned",
    ]);
    expect([...withFlag(flagSet(["has_alert_word"]), "read")]).toEqual(["read", "has_alert_word"]);
    expect(withoutFlag(flagSet(["read", "starred"]), "starred")).toBe(flagSet(["read"]));
    expect(withFlag(flagSet(["read"]), "read")).toBe(flagSet(["read"]));
  });
});
