// A stream and the edit window, on a fake server and clock: rollover before the window closes,
// on the refusal, with editing off, and when the answer has no message left to go on in.
import { describe, expect, it } from "vitest";
import { streamAnswer, type StreamIO } from "../../src/context/stream.js";
import { MessageEditWindowError } from "../../src/client/errors.js";

/** A fake server whose edits of a message older than `refuseAfterMs` are refused as the server does. */
function fakeServer(clock: { t: number }, refuseAfterMs = Infinity) {
  const messages = new Map<number, { content: string; at: number }>();
  let next = 1;
  const io: StreamIO = {
    post: async (content) => {
      const id = next++;
      messages.set(id, { content, at: clock.t });
      return { id };
    },
    edit: async (id, content) => {
      const m = messages.get(id)!;
      if (clock.t - m.at > refuseAfterMs)
        throw new MessageEditWindowError({
          code: "BAD_REQUEST",
          status: 400,
          msg: "The time limit for editing this message has passed",
          extra: {},
          endpoint: "PATCH /messages/{message_id}",
        });
      m.content = content;
    },
  };
  return { io, messages };
}

/** Words, a minute of the clock apart. */
async function* minutes(clock: { t: number }, n: number): AsyncIterable<string> {
  for (let i = 0; i < n; i++) {
    if (i > 0) clock.t += 60_000;
    await new Promise((r) => setImmediate(r));
    yield `${i === 0 ? "" : " "}m${i}`;
  }
}

const options = (clock: { t: number }) => ({
  maxLength: 10_000,
  minEditIntervalMs: 0,
  now: () => clock.t,
  sleep: async () => undefined,
});

describe("a stream and the edit window", () => {
  it("goes on in a new message before a 600 s window closes", async () => {
    const clock = { t: 0 };
    const server = fakeServer(clock, 620_000);
    const result = await streamAnswer(minutes(clock, 25), server.io, {
      ...options(clock),
      editWindowSeconds: () => 600,
    });
    expect(result.complete).toBe(true);
    expect(result.rollovers).toBe(result.messageIds.length - 1);
    expect(result.messageIds.length).toBeGreaterThanOrEqual(3);
    const shown = result.messageIds.map((id) => server.messages.get(id)!.content).join(" ");
    expect(shown).toBe(result.text);
  });

  it("goes on in a new message when the server refuses the edit", async () => {
    const clock = { t: 0 };
    const server = fakeServer(clock, 150_000);
    // The stream believes in no window at all.
    const result = await streamAnswer(minutes(clock, 6), server.io, options(clock));
    expect(result.complete).toBe(true);
    expect(result.rollovers).toBeGreaterThanOrEqual(1);
    const shown = result.messageIds.map((id) => server.messages.get(id)!.content).join(" ");
    expect(shown).toBe(result.text);
  });

  it("with editing off posts the answer once, whole, at the end", async () => {
    const clock = { t: 0 };
    const server = fakeServer(clock, -1);
    const result = await streamAnswer(minutes(clock, 5), server.io, {
      ...options(clock),
      editWindowSeconds: () => 0,
    });
    expect(result).toMatchObject({ complete: true, edits: 0, rollovers: 0 });
    expect(result.messageIds).toHaveLength(1);
    expect(server.messages.get(result.messageIds[0]!)!.content).toBe("m0 m1 m2 m3 m4");
  });

  it("is cut short when the window closes on its last allowed message", async () => {
    const clock = { t: 0 };
    const server = fakeServer(clock, 620_000);
    const result = await streamAnswer(minutes(clock, 30), server.io, {
      ...options(clock),
      editWindowSeconds: () => 600,
      maxMessages: 2,
    });
    expect(result.complete).toBe(false);
    expect(result.cut).toMatch(/edit window in 2 messages/);
    expect(result.messageIds).toHaveLength(2);
  });
});
