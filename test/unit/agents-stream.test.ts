import { describe, expect, it } from "vitest";
import { cutPoint, streamAnswer, textChunks, type StreamIO } from "../../src/context/stream.js";
import { escapeText } from "../../src/markdown/escape.js";

/** A fake server: posts and edits recorded, message IDs from 100. */
function fakeServer() {
  const messages = new Map<number, string>();
  const log: string[] = [];
  let next = 100;
  const typing: boolean[] = [];
  const io: StreamIO = {
    post: async (content) => {
      const id = next++;
      messages.set(id, content);
      log.push(`post ${id}: ${content}`);
      return { id };
    },
    edit: async (id, content) => {
      messages.set(id, content);
      log.push(`edit ${id}: ${content}`);
    },
    typing: async (active) => void typing.push(active),
  };
  return { io, messages, log, typing };
}

/** A clock that only moves when the stream sleeps. */
function manualTime() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

async function* chunks(parts: string[], fail?: Error): AsyncIterable<string> {
  for (const part of parts) {
    await new Promise((r) => setImmediate(r));
    yield part;
  }
  if (fail) throw fail;
}

describe("streamAnswer", () => {
  it("posts the first text, edits as more arrives, and ends with the whole text", async () => {
    const server = fakeServer();
    const time = manualTime();
    const result = await streamAnswer(chunks(["Hel", "lo, ", "wor", "ld!"]), server.io, {
      maxLength: 1000,
      ...time,
    });
    expect(result.complete).toBe(true);
    expect(result.messageIds).toEqual([100]);
    expect(server.messages.get(100)).toBe("Hello, world!");
    expect(server.log[0]).toBe("post 100: Hel");
    expect(result.edits).toBe(server.log.length - 1);
    expect(server.typing[0]).toBe(true);
    expect(server.typing.at(-1)).toBe(false);
  });

  it("never edits faster than the interval or the server's pacing", async () => {
    const server = fakeServer();
    const time = manualTime();
    const writes: number[] = [];
    const io: StreamIO = {
      post: async (c) => (writes.push(time.now()), server.io.post(c)),
      edit: async (id, c) => (writes.push(time.now()), server.io.edit(id, c)),
    };
    await streamAnswer(chunks(Array.from({ length: 20 }, (_, i) => `w${i} `)), io, {
      maxLength: 1000,
      minEditIntervalMs: 500,
      pacing: () => 200,
      ...time,
    });
    for (let i = 1; i < writes.length; i++)
      expect(writes[i]! - writes[i - 1]!).toBeGreaterThanOrEqual(500);
  });

  it("continues in a new message when the text would pass the length limit", async () => {
    const server = fakeServer();
    const para = "word ".repeat(30).trim(); // 149 characters
    const result = await streamAnswer(chunks([para, "\n\n", para, "\n\n", para]), server.io, {
      maxLength: 400,
      ...manualTime(),
    });
    expect(result.messageIds.length).toBe(2);
    const texts = result.messageIds.map((id) => server.messages.get(id)!);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(400);
    expect(texts.join("\n\n")).toBe([para, para, para].join("\n\n"));
  });

  it("keeps the partial text and adds a marker when the source fails", async () => {
    const server = fakeServer();
    const result = await streamAnswer(
      chunks(["The answer is"], new Error("model went away")),
      server.io,
      { maxLength: 1000, interruptedMarker: " [cut]", ...manualTime() },
    );
    expect(result.complete).toBe(false);
    expect((result.error as Error).message).toBe("model went away");
    expect(server.messages.get(100)).toBe("The answer is [cut]");
  });

  it("stops at once when aborted, even if the source hangs", async () => {
    const server = fakeServer();
    const controller = new AbortController();
    async function* hanging(): AsyncIterable<string> {
      yield "partial";
      await new Promise(() => undefined);
    }
    const done = streamAnswer(hanging(), server.io, {
      maxLength: 1000,
      signal: controller.signal,
      interruptedMarker: " [stopped]",
      ...manualTime(),
    });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort(new Error("new message"));
    const result = await done;
    expect(result.complete).toBe(false);
    expect(server.messages.get(100)).toBe("partial [stopped]");
  });

  it("posts nothing for a source that yields only blanks", async () => {
    const server = fakeServer();
    const result = await streamAnswer(chunks([" ", "\n"]), server.io, {
      maxLength: 1000,
      ...manualTime(),
    });
    expect(result.messageIds).toEqual([]);
    expect(server.log).toEqual([]);
  });

  it("reads web ReadableStreams of bytes and of strings", async () => {
    const bytes = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode("héllo "));
        c.enqueue(new TextEncoder().encode("wörld"));
        c.close();
      },
    });
    let text = "";
    for await (const chunk of textChunks(bytes)) text += chunk;
    expect(text).toBe("héllo wörld");
  });
});

describe("cutPoint", () => {
  it("prefers a paragraph, then a line, then a word boundary", () => {
    expect(cutPoint("aaaaaaa\n\nbb cc dd", 14)).toBe(9);
    expect(cutPoint("aaaa bbbb\ncccc dddd", 16)).toBe(10);
    expect(cutPoint("aaaa bbbb cccc", 12)).toBe(10);
    expect(cutPoint("x".repeat(20), 8)).toBe(8);
    expect(cutPoint("short", 8)).toBe(5);
  });
});

describe("streamAnswer with neutralize", () => {
  /** Every `@` that a mention would start at in `text` (what the server would notify). */
  const openMentions = (text: string): string[] => text.match(/@_?\*/g) ?? [];

  it("never shows a mention, even one split across chunks, and keeps each message within the limit", async () => {
    const server = fakeServer();
    const time = manualTime();
    const parts = [
      "hi @",
      "**all** and @",
      "_*",
      "everyone* ",
      ..."@**all** ".repeat(40).split(" "),
    ];
    const result = await streamAnswer(chunks(parts), server.io, {
      maxLength: 120,
      minEditIntervalMs: 0,
      neutralize: escapeText,
      ...time,
    });
    expect(result.complete).toBe(true);
    const shown = server.log.map((line) => line.replace(/^(post|edit) \d+: /, ""));
    expect(shown.flatMap(openMentions)).toEqual([]);
    for (const content of server.messages.values())
      expect([...content].length).toBeLessThanOrEqual(120);
    expect(server.messages.get(100)!.startsWith("hi @\u200b**all** and @\u200b_*everyone*")).toBe(
      true,
    );
    expect(result.messageIds.length).toBeGreaterThan(1);
  });
});
