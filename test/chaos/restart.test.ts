// Chaos: the bot stops, messages arrive while it is down, a new process starts on the same storage.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBot, type Bot } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";
import { createMemoryStore } from "../../src/state/key-value/store.js";
import {
  LOAD_CONFIG,
  addUsers,
  botReplies,
  echoPlugin,
  expectEachAnsweredOnceInOrder,
  sendSurely,
  waitUntil,
} from "./helpers.js";

const PER_PHASE = 60;
const TOPICS = 6;

describe("chaos: a restart in the middle", () => {
  let t: TestBot;
  let second: Bot | undefined;
  // What a restarted process finds again: the same storage (here a memory store both bots share).
  const storage = createMemoryStore();

  beforeAll(async () => {
    t = await createTestBot({
      plugins: [echoPlugin],
      config: { ...LOAD_CONFIG, storage },
      sandbox: { heartbeatSeconds: 1 },
    });
  });

  afterAll(async () => {
    await second?.stop();
    await t?.close();
  });

  it("handles every message exactly once: before the stop, while down, and after the start", async () => {
    const { sandbox } = t;
    const users = addUsers(sandbox, 4);
    const commands: { id: number; topic: string }[] = [];
    const sendPhase = async (phase: number) => {
      for (let i = 0; i < PER_PHASE; i++) {
        const topic = `restart ${i % TOPICS}`;
        const id = await sendSurely(users[i % users.length]!, topic, `!echo ${phase * 1000 + i}`);
        commands.push({ id, topic });
      }
    };
    const replied = () => botReplies(sandbox).length;

    await sendPhase(1);
    await waitUntil(
      () => replied() >= PER_PHASE,
      30_000,
      () => `${replied()} replies before the stop`,
    );
    await t.bot.stop();

    await sendPhase(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(replied(), "nothing answers while the bot is down").toBe(PER_PHASE);

    second = createBot({
      server: { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey },
      plugins: [echoPlugin],
      storage,
      rateLimit: false,
      handleSignals: false,
      ...LOAD_CONFIG,
    });
    await second.start();
    await sendPhase(3);
    await waitUntil(
      () => replied() >= 3 * PER_PHASE,
      30_000,
      () => `${replied()} of ${3 * PER_PHASE} replies after the restart`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all(users.map((c) => c.close()));
    expectEachAnsweredOnceInOrder(sandbox, commands);
  }, 90_000);
});
