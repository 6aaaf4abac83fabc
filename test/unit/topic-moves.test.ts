// Topic moves applied to conversation state: the event read, each stored piece moved once when every node of a cluster applies the move, overlap lanes rekeyed.
import { describe, expect, it } from "vitest";
import { EventEmitter } from "eventemitter3";
import type { UpdateMessageEvent } from "../../src/api/events.js";
import type { MessageContext } from "../../src/context/context.js";
import { Follows } from "../../src/context/follows.js";
import { Dialogs, moveSessions, openSession } from "../../src/context/session.js";
import { OverlapLanes, OverlapRoom } from "../../src/dispatch/overlap-lanes.js";
import { resolveOverlap } from "../../src/dispatch/overlap.js";
import { TopicMoves, topicMoveOf } from "../../src/dispatch/topic-moves.js";
import { silentLogger } from "../../src/log/logger.js";
import type { Conversation } from "../../src/model/conversation.js";
import { createMemoryStore } from "../../src/state/key-value/store.js";

const rename = (over: Partial<UpdateMessageEvent> = {}): UpdateMessageEvent => ({
  id: 1,
  type: "update_message",
  user_id: 8,
  message_id: 40,
  message_ids: [38, 39, 40],
  flags: [],
  edit_timestamp: 1_800_000_000,
  rendering_only: false,
  stream_id: 3,
  stream_name: "general",
  orig_subject: "Draft",
  subject: "Final",
  propagate_mode: "change_all",
  ...over,
});

describe("topicMoveOf reads the move an update_message event reports", () => {
  it("a rename, a channel move without a new topic, and a content edit (no move)", () => {
    expect(topicMoveOf(rename())).toEqual({
      from: { streamId: 3, topic: "Draft" },
      to: { streamId: 3, topic: "Final" },
      mode: "change_all",
      messageIds: [38, 39, 40],
      channel: "general",
    });
    const { subject: _, ...channelOnly } = rename({
      new_stream_id: 9,
      propagate_mode: "change_later",
    });
    expect(topicMoveOf(channelOnly)).toMatchObject({
      from: { streamId: 3, topic: "Draft" },
      to: { streamId: 9, topic: "Draft" },
      mode: "change_later",
      channel: undefined,
    });
    const edit = rename({ content: "new words" });
    delete edit.propagate_mode;
    delete edit.orig_subject;
    delete edit.subject;
    expect(topicMoveOf(edit)).toBeUndefined();
  });
});

/** One node of a cluster: its own caches and waiters over the store every node shares. */
function node(shared: ReturnType<typeof createMemoryStore>, now: () => number) {
  const follows = new Follows(shared.namespace("topicbot:follows"), now);
  const dialogs = new Dialogs<MessageContext>({
    store: shared.namespace("topicbot:questions"),
    now,
  });
  const bus = new EventEmitter();
  const moves = new TopicMoves(bus, {
    follows,
    dialogs,
    sessionStores: () => [shared.namespace("topicbot:sessions").namespace("keeper")],
    overlap: new OverlapRoom(),
    log: silentLogger(),
  });
  return { follows, dialogs, bus, moves };
}

describe("in cluster mode every node applies the move; the stored state moves once", () => {
  it("two nodes over one store: the follow, the sessions and the open question are under the new key once, with the time they had left", async () => {
    let at = 1_000_000;
    const now = () => at;
    const shared = createMemoryStore(now);
    const a = node(shared, now);
    const b = node(shared, now);
    await a.follows.load();
    await b.follows.load();
    // Node a handled the topic: it followed it, kept sessions and asked a question there.
    await a.follows.follow("channel:3:draft", "keeper", { idleMinutes: 30 });
    const sessions = shared.namespace("topicbot:sessions").namespace("keeper");
    await openSession(sessions, "channel:3:draft").set({ heard: 2 }, { ttlMs: 60_000 });
    await openSession(sessions, "channel:3:draft:user:7").set({ mine: true });
    await openSession(sessions, "channel:3:drafts").set({ other: "topic" });
    await openSession(sessions, "channel:3:draft:user:x").set({ other: "topic draft:user:x" });
    // A question in topic "draft|9" is not one in "draft".
    const other = a.dialogs.wait("channel:3:draft|9|7", 600_000, "Another topic's?");
    let movedTo: Conversation | undefined;
    const answer = a.dialogs.wait("channel:3:draft|7", 600_000, "What's your name?", (to) => {
      movedTo = to;
    });
    // Node b never saw the topic (the new name may fall in its partition).
    expect(await b.follows.followers("channel:3:final")).toEqual([]);
    at += 10_000;
    for (const n of [a, b]) n.bus.emit("update_message", rename());
    expect(a.moves.any && b.moves.any).toBe(true);
    await Promise.all([a.moves.pending("channel:3:final"), b.moves.pending("channel:3:final")]);
    expect(a.moves.any || b.moves.any).toBe(false);

    expect(await a.follows.followers("channel:3:final")).toEqual(["keeper"]);
    expect(await b.follows.followers("channel:3:final")).toEqual(["keeper"]);
    expect(await a.follows.followers("channel:3:draft")).toEqual([]);
    expect(await shared.namespace("topicbot:follows").list()).toEqual(["channel:3:final"]);
    expect(await sessions.list()).toEqual([
      "channel:3:draft:user:x",
      "channel:3:drafts",
      "channel:3:final",
      "channel:3:final:user:7",
    ]);
    expect(await sessions.get("channel:3:final")).toEqual({ heard: 2 });
    at += 50_001; // the session had 50 s left after the move: it still expires on time
    expect(await sessions.get("channel:3:final")).toBeUndefined();
    expect(await sessions.get("channel:3:final:user:7")).toEqual({ mine: true });
    expect(await shared.namespace("topicbot:questions").list()).toEqual([
      "channel:3:draft|9|7",
      "channel:3:final|7",
    ]);
    expect(movedTo).toEqual({ type: "channel", streamId: 3, channel: "general", topic: "Final" });
    expect(a.dialogs.offer("channel:3:draft|7", {} as MessageContext)).toBe(false);
    const reply = { text: "Mia" } as MessageContext;
    expect(a.dialogs.offer("channel:3:final|7", reply)).toBe(true);
    expect(await answer).toBe(reply);
    expect(a.dialogs.offer("channel:3:draft|9|7", reply)).toBe(true);
    expect(await other).toBe(reply);
    await Promise.resolve();
    expect(await shared.namespace("topicbot:questions").list()).toEqual([]);
  });

  it("a node that applies the move after another finds it done: nothing is lost or doubled", async () => {
    const shared = createMemoryStore();
    const a = node(shared, Date.now);
    const b = node(shared, Date.now);
    await a.follows.load();
    await a.follows.follow("channel:3:draft", "keeper");
    await shared
      .namespace("topicbot:sessions")
      .namespace("keeper")
      .set("channel:3:draft", { n: 1 });
    a.bus.emit("update_message", rename());
    await a.moves.pending("channel:3:final");
    b.bus.emit("update_message", rename());
    await b.moves.pending("channel:3:final");
    expect(await b.follows.followers("channel:3:final")).toEqual(["keeper"]);
    expect(await shared.namespace("topicbot:sessions").namespace("keeper").list()).toEqual([
      "channel:3:final",
    ]);
  });

  it("a session the destination already has is kept; a rename that only changes case moves nothing", async () => {
    const store = createMemoryStore();
    await store.set("channel:3:a", { from: "a" });
    await store.set("channel:3:b", { from: "b" });
    expect(await moveSessions(store, "channel:3:a", "channel:3:b")).toBe(0);
    expect(await store.get("channel:3:b")).toEqual({ from: "b" });
    expect(await moveSessions(store, "channel:3:b", "channel:3:b")).toBe(0);
    expect(await store.get("channel:3:b")).toEqual({ from: "b" });
  });
});

describe("an overlap lane follows its topic", () => {
  it("a queued handler's next message in the renamed topic waits for the call still running for the old name", async () => {
    const room = new OverlapRoom();
    const lanes = new OverlapLanes(resolveOverlap("queue", "test"), room);
    const order: string[] = [];
    let finishFirst!: () => void;
    lanes.runWith(async (ctx) => {
      order.push(`start ${ctx.message.content}`);
      if (ctx.message.content === "one") await new Promise<void>((r) => (finishFirst = r));
      order.push(`end ${ctx.message.content}`);
    });
    const ctx = (content: string, topic: string) =>
      ({
        conversation: { type: "channel", streamId: 3, channel: "general", topic },
        message: { content },
      }) as unknown as MessageContext;
    await lanes.admit(ctx("one", "draft"));
    room.move("channel:3:draft", "channel:3:final", {
      type: "channel",
      streamId: 3,
      channel: "general",
      topic: "final",
    });
    await lanes.admit(ctx("two", "final"));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(["start one"]);
    finishFirst();
    const deadline = Date.now() + 5_000;
    while (order.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual(["start one", "end one", "start two", "end two"]);
  });
});
