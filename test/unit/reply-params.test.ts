import { describe, expect, it } from "vitest";
import type { SendParams } from "../../src/api/messages.js";
import type { Logger } from "../../src/log/logger.js";
import { postTo, withContent, type SentIds } from "../../src/context/actions.js";
import type { MessageContext } from "../../src/context/context.js";
import { LoopGuard } from "../../src/outbound/loop-guard.js";
import { ReplyGuard } from "../../src/outbound/reply-guard.js";
import type { DeliveryStore, ReplyIntent } from "../../src/state/delivery/store.js";
import { directoryOf, humanAndBot } from "../helpers/fixtures.js";

// A reply's parameters as the journal records them and as they are posted, part by part.

const HUMAN = 7;
const OTHER_BOT = 9;
const users = humanAndBot(HUMAN, OTHER_BOT);

function guardWith(intents: ReplyIntent[]): ReplyGuard {
  // A store only this process writes, taking outcomes synchronously.
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
  it("are journaled as the context made them, cut to the first part only when the content is long", async () => {
    const intents: ReplyIntent[] = [];
    const guard = guardWith(intents);
    const made: SendParams[] = [];
    let nextId = 100;
    const reply = async (incomingId: number, sender: number, n: number, content: string) => {
      const ctx = { message: { id: incomingId, sender_id: sender }, plugin: "echo" };
      const params = (): SendParams => {
        const p: SendParams = { type: "channel", to: 1, topic: "t", content };
        made.push(p);
        return p;
      };
      const where = () => "t";
      const post = async (): Promise<SentIds> => ({ id: nextId, ids: [nextId++] });
      await guard.guard(ctx as unknown as MessageContext, n, {
        kind: "reply",
        willEdit: false,
        where,
        post,
        params,
      });
    };
    await reply(1, HUMAN, 0, "one");
    await reply(1, HUMAN, 1, "two");
    await reply(2, HUMAN, 0, "three");
    await reply(3, OTHER_BOT, 0, "to a bot");
    expect(intents.map((i) => i.params)).toEqual(made);
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
});
