import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { SendParams } from "../../src/api/messages.js";
import type { Logger } from "../../src/log/logger.js";
import { postTo, withContent, type SentIds } from "../../src/runtime/context/actions.js";
import type { MessageContext } from "../../src/runtime/context/context.js";
import { LoopGuard } from "../../src/runtime/delivery/loop-guard.js";
import { ReplyGuard } from "../../src/runtime/delivery/reply-guard.js";
import type { DeliveryStore, ReplyIntent } from "../../src/runtime/delivery/store.js";
import { directoryOf, humanAndBot } from "../helpers/fixtures.js";

// Work a reply does that it need not: copies of its parameters (each a slow object spread in
// Node 20's V8), and the loop guard's name of the conversation when the loop guard does not count it.

const HUMAN = 7;
const OTHER_BOT = 9;
const users = humanAndBot(HUMAN, OTHER_BOT);

function guardWith(intents: ReplyIntent[]): ReplyGuard {
  // A store only this process writes, taking outcomes synchronously: the guard's fast path.
  const store: DeliveryStore = {
    load: async () => ({ watermark: undefined, replies: [] }),
    saveWatermark: async () => undefined,
    intend: (intent) => {
      intents.push(intent);
      return Promise.resolve();
    },
    sent: async () => undefined,
    sentNow: () => undefined,
    flush: async () => undefined,
    close: async () => undefined,
  };
  return new ReplyGuard({
    store,
    outbox: { send: async () => ({ id: 0 }), landed: async () => undefined, confirm: () => {} },
    directory: directoryOf(users),
    loopGuard: new LoopGuard({ maxMessages: 10, windowMs: 60_000, pauseMs: 60_000, now: () => 5 }),
    server: () => ({ featureLevel: 400, maxMessageLength: 20 }),
    floor: () => 50,
    now: () => 1_000,
    log: { warn: () => {}, info: () => {} } as unknown as Logger,
    onStorageError: (error) => {
      throw error;
    },
  });
}

describe("a reply's parameters", () => {
  it("are journaled as the context made them (no copy), cut only when the content is long", async () => {
    const intents: ReplyIntent[] = [];
    const guard = guardWith(intents);
    const made: SendParams[] = [];
    let whereCalls = 0;
    let nextId = 100;
    const reply = async (incomingId: number, sender: number, n: number, content: string) => {
      const ctx = { message: { id: incomingId, sender_id: sender }, plugin: "echo" };
      const params = (): SendParams => {
        const p: SendParams = { type: "channel", to: 1, topic: "t", content };
        made.push(p);
        return p;
      };
      const where = () => {
        whereCalls++;
        return "t";
      };
      const post = async (): Promise<SentIds> => ({ id: nextId, ids: [nextId++] });
      await guard.guard(ctx as unknown as MessageContext, n, {
        kind: "reply",
        willEdit: false,
        where,
        post,
        params,
      });
    };
    // A human's message: the first reply takes the slow path (the user list is read), the rest
    // the fast one. Answers: the loop guard does not count them, so `where` is not needed.
    await reply(1, HUMAN, 0, "one");
    await reply(1, HUMAN, 1, "two");
    await reply(2, HUMAN, 0, "three");
    expect(intents.map((i) => i.params)).toEqual(made);
    for (let i = 0; i < 3; i++) expect(intents[i]!.params).toBe(made[i]);
    expect(whereCalls).toBe(0);
    // A bot's message: counted by the loop guard, which names the conversation.
    await reply(3, OTHER_BOT, 0, "to a bot");
    expect(whereCalls).toBe(1);
    expect(intents[3]!.params).toBe(made[3]);
    // Content longer than one message: the intent holds its first part, in a copy.
    await reply(4, HUMAN, 0, "a long reply\nthat is cut into parts");
    expect(intents[4]!.params).toEqual({ ...made[4], content: "a long reply" });
    expect(made[4]!.content).toBe("a long reply\nthat is cut into parts");
  });

  it("get their content with the keys and order of a spread", async () => {
    const base = { type: "channel", to: 5, topic: "t" } as const;
    expect(Object.entries(withContent(base, "hi"))).toEqual(
      Object.entries({ ...base, content: "hi" }),
    );
    const withOld = { type: "direct", content: "old", to: [1] } as const;
    expect(Object.entries(withContent(withOld, "new"))).toEqual(
      Object.entries({ ...withOld, content: "new" }),
    );
    expect(base).not.toHaveProperty("content");
    // postTo sends each part in such a copy, the widget on the first.
    const sent: SendParams[] = [];
    await postTo(
      {
        api: undefined as never,
        me: undefined as never,
        server: () => ({ featureLevel: 400, maxMessageLength: 5 }),
        sendMessage: async (p) => {
          sent.push(p);
          return { id: sent.length };
        },
      },
      base,
      "aaaa\nbbbb",
      { widget_type: "zform", extra_data: {} },
    );
    expect(sent).toEqual([
      { ...base, content: "aaaa", widget_content: '{"widget_type":"zform","extra_data":{}}' },
      { ...base, content: "bbbb" },
    ]);
  });

  it("are not copied by a spread followed by more properties on the reply path", () => {
    // `{ ...p, content }` cost about 0.9 µs in Node 20 (the runtime's slow clone), a plain copy
    // (`withContent`) about 0.08: each reply made three. The modules every reply runs through.
    const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
    const context = read("src/runtime/context/context.ts");
    const deliver = context.slice(context.indexOf("async #deliver("));
    const sources: [string, string][] = [
      ["src/runtime/context/actions.ts", read("src/runtime/context/actions.ts")],
      ["src/runtime/delivery/reply-guard.ts", read("src/runtime/delivery/reply-guard.ts")],
      // Only the context's `#deliver` (other actions, such as `history`, run once in a while).
      ["context.ts #deliver", deliver.slice(0, deliver.indexOf("\n  }\n"))],
    ];
    const found: string[] = [];
    for (const [file, text] of sources) {
      text.split("\n").forEach((line, i) => {
        if (/^\s*(\*|\/\/)/.test(line)) return; // comments and examples
        if (/\{\s*\.\.\.[\w.]+,\s*[\w"']/.test(line))
          found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
