// The dev console over its HTTP API, in-process on the embedded sandbox: rendering, zform clicks, poll votes, saving a test.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, repoRoot, startDevConsole, type DevConsole } from "../helpers/dev-console.js";

interface Shown {
  id: number;
  senderName: string;
  html: string;
  widget?: { type: string; heading?: string; options?: { key: string; voters: number[] }[] };
  reactions: { emoji: string; unicode?: string }[];
}

const place = { type: "channel", channel: "general", topic: "dev" };

describe("the dev console's messages and widgets", () => {
  let dev: DevConsole;
  beforeAll(async () => {
    dev = await startDevConsole({ watch: false });
  }, 60_000);
  afterAll(() => dev?.stop(), 30_000);

  const messages = async () =>
    (await dev.api<{ messages: Shown[] }>("GET", "/api/messages?channel=general&topic=dev")).json
      .messages;
  const say = async (text: string) =>
    expect((await dev.api("POST", "/api/send", { place, text })).status).toBe(200);
  const last = (list: Shown[], match: (m: Shown) => boolean) => list.filter(match).at(-1);

  it("says plugin files are not watched under --no-watch (old code: said watching)", async () => {
    const { json } = await dev.api<{ watching: boolean }>("GET", "/api/state");
    expect(json.watching).toBe(false);
  });

  it("shows the server's HTML made safe, emoji as emoji and times as <time>", async () => {
    await say("!fmt");
    const list = await eventually(messages, (l) => l.some((m) => m.html.includes("Shipped")));
    const answer = last(list, (m) => m.html.includes("Shipped"))!;
    expect(answer.html).toContain("<strong>Shipped</strong>");
    expect(answer.html).toMatch(/class="emoji emoji-1f389"[^>]*>🎉<\/span>/);
    expect(answer.html).toContain('<time datetime="2024-05-01T10:00:00Z">');
    await dev.api("POST", "/api/react", { messageId: answer.id, emoji: "thumbs_up" });
    const reacted = await eventually(messages, (l) =>
      l.some((m) => m.id === answer.id && m.reactions.length > 0),
    );
    expect(reacted.find((m) => m.id === answer.id)!.reactions).toEqual([
      { emoji: "thumbs_up", unicode: "👍", userId: expect.any(Number) },
    ]);
  }, 60_000);

  it("clicks a zform choice: the reply text goes out from the speaker and the bot's handler answers", async () => {
    await say("!card");
    const list = await eventually(messages, (l) => l.some((m) => m.widget?.type === "choices"));
    const card = last(list, (m) => m.widget?.type === "choices")!;
    expect(card.widget).toMatchObject({ heading: "Pick a colour" });
    // The card's content is there for mobile clients too.
    expect(card.html).toContain("<strong>blue</strong>");
    const click = await dev.api("POST", "/api/choose", { messageId: card.id, index: 1 });
    expect(click).toEqual({ status: 200, json: { reply: "!picked green" } });
    const after = await eventually(messages, (l) =>
      l.some((m) => m.html.includes("you picked green")),
    );
    const picked = after.findIndex((m) => m.html.includes("!picked green"));
    expect(after[picked]!.senderName).toBe("Mia Member");
    expect(after[picked + 1]!.html).toContain("you picked green");
    // A click on what is no zform, or on no choice, is refused saying why.
    expect((await dev.api("POST", "/api/choose", { messageId: card.id, index: 5 })).json).toEqual({
      error: `message ${card.id} has no choice 5`,
    });
    expect(
      (await dev.api("POST", "/api/choose", { messageId: after[picked]!.id, index: 0 })).json,
    ).toEqual({ error: `message ${after[picked]!.id} has no zform choices to click` });
    expect((await dev.api("POST", "/api/choose", { messageId: 99_999_999, index: 0 })).status).toBe(
      404,
    );
  }, 60_000);

  it("votes in a poll as the web client does, and takes the vote back", async () => {
    await say("!lunch");
    const poll = last(
      await eventually(messages, (l) => l.some((m) => m.widget?.type === "poll")),
      (m) => m.widget?.type === "poll",
    )!;
    const { json: state } = await dev.api<{ speaker: { userId: number } }>("GET", "/api/state");
    const votes = async () =>
      (await messages()).find((m) => m.id === poll.id)!.widget!.options!.map((o) => o.voters);
    expect(await dev.api("POST", "/api/vote", { messageId: poll.id, key: "canned,0" })).toEqual({
      status: 200,
      json: { type: "vote", key: "canned,0", vote: 1 },
    });
    await eventually(votes, (v) => v[0]!.includes(state.speaker.userId));
    expect(
      (await dev.api("POST", "/api/vote", { messageId: poll.id, key: "canned,0" })).json,
    ).toEqual({
      type: "vote",
      key: "canned,0",
      vote: -1,
    });
    expect(await eventually(votes, (v) => v[0]!.length === 0)).toEqual([[], []]);
  }, 60_000);

  it("attributes a reaction the bot makes on a ctx.ask answer to the handler that asked (old code: fails)", async () => {
    // The console's live stream, as the page reads it.
    const { origin, searchParams } = new URL(dev.url);
    const abort = new AbortController();
    const res = await fetch(`${origin}/stream?token=${searchParams.get("token")}`, {
      signal: abort.signal,
    });
    let frames = "";
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
        frames += decoder.decode(chunk, { stream: true });
    })().catch(() => undefined);
    try {
      await say("!sure");
      await eventually(messages, (l) => l.at(-1)!.html.includes("Sure?"));
      // Answered after more than the one second the old fallback covered.
      await new Promise((r) => setTimeout(r, 1_500));
      await say("yes");
      const reaction = await eventually(
        async () =>
          frames
            .split("\n\n")
            .filter((f) => f.startsWith("event: reaction"))
            .map((f) => JSON.parse(f.slice(f.indexOf("data: ") + 6)) as Record<string, unknown>)
            .find((r) => r.emoji === "check"),
        (r) => r !== undefined,
      );
      expect(reaction).toMatchObject({ op: "add", via: "cards › command sure" });
    } finally {
      abort.abort();
      await reading;
    }
  }, 60_000);

  it("saves the conversation as a test file that passes under vitest", async () => {
    await say("just chatting");
    await say("!ping");
    await eventually(messages, (l) => l.at(-1)!.html.includes("pong"));
    const { status, json } = await dev.api<{ file: string; steps: number }>(
      "POST",
      "/api/save-test",
      { place },
    );
    expect(status).toBe(200);
    // !fmt, !card, !picked green, !lunch, !sure, yes, just chatting, !ping.
    const file = join(process.cwd(), json.file);
    const source = await readFile(file, "utf8");
    expect(json.steps, source).toBe(8);
    expect(source).toContain('["!picked green", "you picked green"],');
    expect(source).toContain('["just chatting", null],');
    // The question is answered again in the saved test; the answer gets no reply, only a reaction.
    expect(source).toContain('["!sure", "Sure?"],');
    expect(source).toContain('["yes", null],');
    expect(source).toContain('["!lunch", "/poll Lunch?\\nPizza\\nSoup"],');
    expect(source).toContain('import * as plugin1 from "../cards.mjs";');

    // The saved test runs green on its own, in a vitest of its own (bounded).
    const run = spawn(
      process.execPath,
      [join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", relative(repoRoot, file)],
      { cwd: repoRoot, env: { ...process.env, CI: "1", FORCE_COLOR: "0" }, stdio: "pipe" },
    );
    let out = "";
    run.stdout.on("data", (c: Buffer) => (out += c.toString()));
    run.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => run.kill("SIGKILL"), 150_000);
      run.on("exit", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code, `${source}\n${out}`).toBe(0);
    expect(out).toMatch(/1 passed/);
  }, 180_000);
});
