// Property test of the sandbox's message index: narrowed reads and topic participants equal a brute-force scan of all history.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Narrow } from "../../src/api/common.js";
import { ManualClock } from "../../src/sandbox/clock.js";
import { editMessage } from "../../src/sandbox/edits.js";
import { compileNarrow, type CompiledNarrow } from "../../src/sandbox/narrow.js";
import { QueueRegistry } from "../../src/sandbox/queues.js";
import { allMatching, candidates, resolveAnchor, window } from "../../src/sandbox/range.js";
import { DEFAULT_SETTINGS, Realm } from "../../src/sandbox/realm.js";
import type { SandboxUser, StoredMessage } from "../../src/sandbox/model.js";
import { seedRealm } from "../../src/sandbox/seed.js";
import { sendDirect, sendToChannel } from "../../src/sandbox/send.js";

function world(): { realm: Realm; users: SandboxUser[] } {
  const clock = new ManualClock(0);
  const queues = new QueueRegistry({ heartbeatSeconds: 1, idleTimeoutSeconds: 60 }, () =>
    clock.now(),
  );
  queues.close();
  const realm = new Realm({ ...DEFAULT_SETTINGS }, clock, queues);
  const byHandle = seedRealm(realm);
  const users = ["olivia", "mia", "gus", "bot"].map((h) => byHandle.get(h)!);
  // A private channel only some users are in, so access rules matter.
  const secret = realm.addChannel("secret", "", true);
  realm.subscribe(secret, users[0]!.userId);
  realm.subscribe(secret, users[3]!.userId);
  return { realm, users };
}

const CHANNELS = ["general", "sandbox", "secret"];
const TOPICS = ["alpha", "Alpha", "beta", "gamma"];

const action = fc.oneof(
  fc.record({
    kind: fc.constant("channel" as const),
    sender: fc.nat(3),
    channel: fc.constantFrom(...CHANNELS),
    topic: fc.constantFrom(...TOPICS),
  }),
  fc.record({
    kind: fc.constant("dm" as const),
    sender: fc.nat(3),
    to: fc.uniqueArray(fc.nat(3), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant("move" as const),
    pick: fc.nat(),
    channel: fc.option(fc.constantFrom(...CHANNELS), { nil: undefined }),
    topic: fc.constantFrom(...TOPICS),
    mode: fc.constantFrom("change_one" as const, "change_later" as const, "change_all" as const),
  }),
);

const term = fc.oneof(
  fc.constantFrom(...CHANNELS).map((c) => ({ operator: "channel", operand: c })),
  fc.constantFrom(...TOPICS, "ALPHA").map((t) => ({ operator: "topic", operand: t })),
  fc.constantFrom("channels").map(() => ({ operator: "channels", operand: "public" })),
  fc.constantFrom("is").map(() => ({ operator: "is", operand: "dm" })),
  fc.nat(3).map((i) => ({ operator: "sender", operand: i })),
  fc.uniqueArray(fc.nat(3), { minLength: 1, maxLength: 2 }).map((ids) => ({
    operator: "dm",
    operand: ids,
  })),
);
const narrowArb = fc.array(fc.record({ t: term, negated: fc.boolean() }), { maxLength: 3 });

/** The sandbox's reads before the index: filter all history, then cut the window from that. */
function bruteForce(
  realm: Realm,
  viewer: SandboxUser,
  narrow: CompiledNarrow,
  anchor: number | "newest" | "oldest" | "first_unread",
  numBefore: number,
  numAfter: number,
): number[] {
  const historical = narrow.historicalChannels();
  const matching = realm.messages.filter((m) => {
    let reachable = m.flags.has(viewer.userId) && realm.canSee(viewer, m);
    if (!reachable && historical && m.kind === "stream")
      reachable =
        (historical === "public" || historical.has(m.streamId!)) && realm.canSee(viewer, m);
    return reachable && narrow.matches(m);
  });
  const unread = (m: StoredMessage) => !realm.flagsFor(m, viewer).includes("read");
  const id =
    anchor === "newest"
      ? Infinity
      : anchor === "oldest"
        ? 0
        : anchor === "first_unread"
          ? (matching.find(unread)?.id ?? Infinity)
          : anchor;
  const before = matching.filter((m) => m.id < id);
  const at = matching.filter((m) => m.id === id);
  const after = matching.filter((m) => m.id > id);
  return [
    ...before.slice(Math.max(0, before.length - numBefore)),
    ...at,
    ...after.slice(0, numAfter),
  ]
    .map((m) => m.id)
    .concat([
      // The server's post_process_limited_query: anchored ends, or fewer rows than asked.
      id === 0 || Math.min(before.length, numBefore) < numBefore ? 1 : 0,
      id === Infinity || Math.min(after.length, numAfter) < numAfter ? 1 : 0,
    ]);
}

describe("the message index", () => {
  it("answers narrowed reads and topic participants exactly as a scan of all history", () => {
    fc.assert(
      fc.property(
        fc.array(action, { minLength: 1, maxLength: 60 }),
        narrowArb,
        fc.nat(3),
        fc.oneof(
          fc.constantFrom("newest" as const, "oldest" as const, "first_unread" as const),
          fc.nat(70),
        ),
        fc.nat(8),
        fc.nat(8),
        (actions, terms, viewerIndex, anchor, numBefore, numAfter) => {
          const { realm, users } = world();
          for (const a of actions) {
            try {
              if (a.kind === "channel") {
                sendToChannel(realm, {
                  sender: users[a.sender]!,
                  channel: realm.channelByName(a.channel)!,
                  topic: a.topic,
                  content: "hello",
                });
              } else if (a.kind === "dm") {
                sendDirect(realm, {
                  sender: users[a.sender]!,
                  recipients: a.to.map((i) => users[i]!),
                  content: "hi",
                });
              } else {
                const channelMessages = realm.messages.filter((m) => m.kind === "stream");
                if (channelMessages.length === 0) continue;
                const message = channelMessages[a.pick % channelMessages.length]!;
                editMessage(realm, {
                  editor: users[0]!,
                  message,
                  topic: a.topic,
                  channel: a.channel === undefined ? undefined : realm.channelByName(a.channel),
                  propagateMode: a.mode,
                });
              }
            } catch {
              // A refused send (a guest to a channel it may not post in) changes nothing.
            }
          }
          const viewer = users[viewerIndex]!;
          const compile = () =>
            compileNarrow(
              realm,
              viewer,
              terms.map(({ t, negated }) => ({
                operator: t.operator,
                operand:
                  t.operator === "sender"
                    ? users[t.operand as number]!.userId
                    : t.operator === "dm"
                      ? (t.operand as number[]).map((i) => users[i]!.userId)
                      : t.operand,
                negated,
              })) as Narrow,
            );
          let narrow: CompiledNarrow;
          try {
            narrow = compile();
          } catch (error) {
            // A narrow the server refuses (channel and DM at once) has no window to compare.
            if ((error as { code?: string }).code === "BAD_NARROW") return;
            throw error;
          }
          const found = candidates(realm, viewer, narrow);
          const anchorId = resolveAnchor(
            anchor,
            found,
            (m) => !realm.flagsFor(m, viewer).includes("read"),
          );
          const got = window(found, anchorId, { numBefore, numAfter, includeAnchor: true });
          expect([
            ...got.messages.map((m) => m.id),
            got.foundOldest ? 1 : 0,
            got.foundNewest ? 1 : 0,
          ]).toEqual(bruteForce(realm, viewer, narrow, anchor, numBefore, numAfter));
          expect(allMatching(found).map((m) => m.id)).toEqual(
            bruteForce(realm, viewer, narrow, "oldest", 0, 1_000).slice(0, -2),
          );
          for (const channel of realm.channels.values())
            for (const topic of TOPICS) {
              const senders = new Set(
                realm.messages
                  .filter(
                    (m) =>
                      m.streamId === channel.streamId &&
                      m.topic.toLowerCase() === topic.toLowerCase(),
                  )
                  .map((m) => m.senderId),
              );
              expect(realm.index.participants(channel.streamId, topic)).toEqual(senders);
            }
        },
      ),
      { numRuns: 150 },
    );
  });
});
