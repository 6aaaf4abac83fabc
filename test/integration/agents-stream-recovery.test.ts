// A stream's first message is recognised after a crash by its place, not its content: the rerun edits it, it does not post again.
import { afterEach, describe, expect, it } from "vitest";
import { createBot, createMemoryStore, definePlugin, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { KeyValueDeliveryStore } from "../../src/state/delivery/key-value.js";
import type { DeliveryState, DeliveryStore, ReplyIntent } from "../../src/state/delivery/store.js";
import type { KeyValueStore } from "../../src/state/key-value/store.js";
import { post, until } from "../helpers/reliability.js";

/**
 * A delivery store whose writes after the intent fail while `failing` is set (a full disk): the
 * intent is on record, its outcome and the watermark are not, as after a crash at that point.
 */
class FailingAfterIntent implements DeliveryStore {
  failing = false;
  /** Watermarks written. */
  watermarks = 0;
  readonly #inner: KeyValueDeliveryStore;
  constructor(kv: KeyValueStore) {
    this.#inner = new KeyValueDeliveryStore(kv);
  }
  load = () => this.#inner.load();
  intend = (intent: ReplyIntent) => this.#inner.intend(intent);
  saveWatermark = (state: DeliveryState) => {
    if (this.failing) return Promise.reject(new Error("ENOSPC"));
    this.watermarks++;
    return this.#inner.saveWatermark(state);
  };
  sent = (incomingId: number, index: number, ids: number[]) =>
    this.failing ? Promise.reject(new Error("ENOSPC")) : this.#inner.sent(incomingId, index, ids);
  flush = () => (this.failing ? Promise.resolve() : this.#inner.flush());
  close = () => this.#inner.close();
}

/** `!story` streams `words` one by one; `!hi` answers `hi`. `onStory` runs as the story starts. */
function storyteller(words: string[], onStory: () => void = () => undefined) {
  return definePlugin({
    name: "story",
    setup(bot) {
      bot.command("hi", { description: "hi" }, (ctx) => ctx.reply("hi"));
      bot.command("story", { description: "tells a story" }, async (ctx) => {
        onStory();
        async function* source() {
          for (const [i, word] of words.entries()) {
            if (i > 0) await new Promise((resolve) => setTimeout(resolve, 30));
            yield (i === 0 ? "" : " ") + word;
          }
        }
        await ctx.stream(source(), { minEditIntervalMs: 10 });
      });
    },
  });
}

describe("a stream after a crash, recognised without comparing content", () => {
  let sandbox: Sandbox | undefined;
  const bots: Bot[] = [];
  afterEach(async () => {
    for (const bot of bots.splice(0)) await bot.stop().catch(() => undefined);
    await sandbox?.close();
  });

  it("a rerun whose model starts with other words edits the message the crashed run posted and edited", async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 0.2 });
    const kv = createMemoryStore();
    const runtime = kv.namespace("topicbot:runtime");
    const start = (delivery: DeliveryStore, words: string[], onStory?: () => void) => {
      const bot = createBot({
        server: { site: sandbox!.url, email: sandbox!.bot.email, apiKey: sandbox!.bot.apiKey },
        plugins: [storyteller(words, onStory)],
        handleSignals: false,
        rateLimit: false,
        storage: kv,
        delivery,
        eventLoop: { backoff: { baseMs: 5, capMs: 20 } },
        sendRetry: { baseMs: 5, capMs: 20 },
      });
      bots.push(bot);
      return bot;
    };
    const botMessages = () =>
      sandbox!.realm.messages.filter((m) => m.senderId === sandbox!.bot.userId);

    // Run 1: answers `!hi` (the watermark is saved), then the disk fills as the story starts.
    const first = new FailingAfterIntent(runtime);
    await start(first, ["Once", "upon", "a", "time."], () => (first.failing = true)).start();
    post(sandbox, "!hi");
    await until(() => botMessages().length === 1, "the answer to !hi");
    await until(() => first.watermarks > 0, "the watermark");
    const story = post(sandbox, "!story");
    await until(
      () => botMessages()[1]?.content === "Once upon a time.",
      "the first run's story, edited to its end",
    );
    await bots[0]!.stop().catch(() => undefined); // its last watermark write fails too
    const posted = botMessages()[1]!.id;

    // Run 2 (a restart): the story is above the watermark and handled again with other words.
    const second = new FailingAfterIntent(runtime);
    await start(second, ["Long", "ago,", "far", "away."]).start();
    await until(
      () => botMessages().some((m) => m.content === "Long ago, far away."),
      "the second run's story",
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(botMessages().map((m) => [m.id, m.content])).toEqual([
      [botMessages()[0]!.id, "hi"],
      [posted, "Long ago, far away."],
    ]);
    expect(story).toBeGreaterThan(botMessages()[0]!.id);
  });
});
