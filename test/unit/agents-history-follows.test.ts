import { describe, expect, it } from "vitest";
import type { Message } from "../../src/api/messages.js";
import { plainText, toTurns } from "../../src/context/history.js";
import { Follows } from "../../src/context/follows.js";
import { createMemoryStore } from "../../src/state/key-value/store.js";

const msg = (id: number, sender: number, name: string, content: string): Message =>
  ({
    id,
    sender_id: sender,
    sender_full_name: name,
    sender_email: `${name}@x`,
    content,
    timestamp: 1_700_000_000 + id,
    type: "stream",
    subject: "t",
    stream_id: 1,
    display_recipient: "general",
  }) as unknown as Message;

describe("history as turns", () => {
  it("names turns by who sent them, oldest first, as plain text", () => {
    const turns = toTurns(
      [
        msg(3, 9, "Bot", "<p>Hi <strong>Ann</strong>, here:</p>\n<pre><code>x = 1\n</code></pre>"),
        msg(2, 5, "Ann", '<p>Help with <a href="https://x">this</a>?</p>'),
      ],
      9,
    );
    expect(turns.map((t) => [t.role, t.name, t.text])).toEqual([
      ["user", "Ann", "Help with this?"],
      ["assistant", "Bot", "Hi Ann, here:\n\nx = 1"],
    ]);
  });

  it("keeps the newest within the count and character bounds", () => {
    const messages = Array.from({ length: 10 }, (_, i) =>
      msg(i + 1, 5, "Ann", `<p>${"m".repeat(10)}${i}</p>`),
    );
    expect(toTurns(messages, 9, { limit: 3 }).map((t) => t.messageId)).toEqual([8, 9, 10]);
    expect(toTurns(messages, 9, { maxChars: 25 }).map((t) => t.messageId)).toEqual([9, 10]);
    expect(
      toTurns(messages, 9, { since: (1_700_000_000 + 9) * 1000 }).map((t) => t.messageId),
    ).toEqual([9, 10]);
    expect(toTurns(messages, 9, { before: 4 }).map((t) => t.messageId)).toEqual([1, 2, 3]);
  });

  it("renders mentions and emoji as their text", () => {
    expect(
      plainText(
        '<p><span class="user-mention" data-user-id="5">@Ann</span> <span class="emoji">:wave:</span></p>',
      ),
    ).toBe("@Ann :wave:");
  });
});

describe("Follows", () => {
  it("follows until unfollowed, per plugin, and survives a new instance on the same store", async () => {
    const now = 0;
    const store = createMemoryStore(() => now);
    const follows = new Follows(store, () => now);
    await follows.follow("channel:1:t", "assistant", { idleMinutes: 10 });
    await follows.follow("channel:1:t", "notes");
    expect(await follows.followers("channel:1:t")).toEqual(["assistant", "notes"]);
    await follows.unfollow("channel:1:t", "notes");
    const again = new Follows(store, () => now);
    expect(await again.followers("channel:1:t")).toEqual(["assistant"]);
    expect((await again.list()).map((f) => f.plugin)).toEqual(["assistant"]);
  });

  it("ends a follow after its idle time, and activity keeps it alive", async () => {
    let now = 0;
    const follows = new Follows(
      createMemoryStore(() => now),
      () => now,
    );
    await follows.follow("direct:1,2", "assistant", { idleMinutes: 1 });
    now = 50_000;
    await follows.touch("direct:1,2");
    now = 100_000;
    expect(await follows.followers("direct:1,2")).toEqual(["assistant"]);
    now = 170_000;
    expect(await follows.followers("direct:1,2")).toEqual([]);
  });

  it("refuses an idle time that is not a sane number", async () => {
    const follows = new Follows(createMemoryStore());
    await expect(follows.follow("x", "p", { idleMinutes: Number.NaN })).rejects.toThrow(
      "idleMinutes",
    );
  });
});
