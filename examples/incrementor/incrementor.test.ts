// zulip_bots' test_incrementor.py, ported: the first message gets "1", the next three edit it to 2, 3, 4.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import incrementor from "./index.js";

describe("incrementor (ported from zulip_bots)", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({
      plugins: [incrementor],
      config: { respondTo: "mentions", unknownCommandReply: false },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  /** The content of a message now, as the server keeps it (after edits). */
  const contentOf = async (id: number) =>
    (await t.clientFor("mia").messages.get({ message_id: id, apply_markdown: false })).message
      .content;

  it("replies 1, then edits that reply to 2, 3 and 4 (test_bot)", async () => {
    const mention = t.bot.me.mention;
    await t.send(`${mention} hi`);
    const first = await t.expectReply("1");
    for (const n of [2, 3, 4]) {
      await t.send(`${mention} again`);
      await t.expectNoReply();
      expect(await contentOf(first.id)).toBe(String(n));
    }
    // test_incrementor.py checks the three update_message contents: the server kept each edit.
    const history = await t.clientFor("mia").messages.history({ message_id: first.id });
    expect(history.message_history.map((h) => h.content)).toEqual(["1", "2", "3", "4"]);
  });

  it("answers only what zulip_bots would pass it: no mention in a channel, no reply", async () => {
    await t.send("no mention here");
    await t.expectNoReply();
  });
});
