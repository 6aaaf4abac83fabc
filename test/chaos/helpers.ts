// Chaos suite helpers: extra users, sends that survive injected faults, the bot's replies read from the realm.
import { expect } from "vitest";
import { createClient, type ApiClient } from "topicbot/client";
import type { Sandbox } from "topicbot/sandbox";
import { arg, definePlugin } from "topicbot";
import { sandboxServerLines } from "../helpers/process.js";

/**
 * Runtime settings for load tests: the defaults. Many users sending commands into one topic is load,
 * not a runaway plugin; the loop guard does not count a plugin's first answers to a human's message,
 * so it stays on here and the suite proves it does not drop answers under load. The default
 * catch-up window (5000 messages from others than the bot) holds a whole run, so a lost queue never
 * skips a backlog; `run` checks that it never had to.
 */
export const LOAD_CONFIG = {} as const;

/** `!echo` answers `echo <message id>`, so every reply names the command it answers. */
export const echoPlugin = definePlugin({
  name: "echo",
  setup(bot) {
    bot.command(
      "echo",
      { description: "Names the message it answers", args: { n: arg.number() } },
      (ctx) => ctx.reply(`echo ${ctx.message.id}`),
    );
  },
});

/** Adds `count` member accounts subscribed to `general`; returns a client for each. */
export function addUsers(sandbox: Sandbox, count: number): ApiClient[] {
  const { realm } = sandbox;
  const general = realm.channelByName("general")!;
  return Array.from({ length: count }, (_, i) => {
    const user = realm.addUser({
      email: `chaos${i}@${realm.settings.host}`,
      fullName: `Chaos User ${i}`,
      password: null,
      role: 400,
      isBot: false,
      botType: null,
      botOwnerId: null,
    });
    realm.subscribe(general, user.userId);
    return createClient({
      site: sandbox.url,
      email: user.email,
      apiKey: user.apiKey,
      retry: { baseMs: 5, capMs: 50 },
    });
  });
}

/**
 * Sends a channel message, trying again when an injected fault answered instead of the server
 * (the sandbox injects faults before the route runs, so a failed send stored nothing).
 */
export async function sendSurely(
  client: ApiClient,
  topic: string,
  content: string,
  attempts = 20,
): Promise<number> {
  for (let i = 1; ; i++) {
    try {
      const { id } = await client.messages.send({ type: "channel", to: "general", topic, content });
      return id;
    } catch (error) {
      if (i >= attempts) throw error;
    }
  }
}

/** The bot's messages in `general`, oldest first: topic and the message ID each names. */
export function botReplies(
  sandbox: Sandbox,
): { topic: string; answers: number; content: string }[] {
  return sandbox.realm.messages
    .filter((m) => m.senderId === sandbox.bot.userId && m.kind === "stream")
    .map((m) => ({
      topic: m.topic,
      content: m.content,
      answers: Number(/^echo (\d+)$/.exec(m.content)?.[1] ?? NaN),
    }));
}

/** Waits (polling every 20 ms) until `done()` holds; fails after `timeoutMs` with `describe()`. */
export async function waitUntil(
  done: () => boolean,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Checks that every command got exactly one reply, in its own topic, and that within each topic
 * the replies come in the order the commands were stored.
 */
export function expectEachAnsweredOnceInOrder(
  sandbox: Sandbox,
  commands: { id: number; topic: string }[],
): void {
  const replies = botReplies(sandbox);
  const stray = replies.filter((r) => Number.isNaN(r.answers));
  expect(
    stray.map((r) => r.content),
    "bot messages that answer no command",
  ).toEqual([]);
  const counts = new Map<number, number>();
  for (const r of replies) counts.set(r.answers, (counts.get(r.answers) ?? 0) + 1);
  const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
  const missing = commands.filter((c) => !counts.has(c.id)).map((c) => c.id);
  expect(twice, "commands answered more than once").toEqual([]);
  expect(missing, "commands never answered").toEqual([]);
  expect(replies.length).toBe(commands.length);

  const topicOf = new Map(commands.map((c) => [c.id, c.topic]));
  const byTopic = new Map<string, number[]>();
  for (const r of replies) {
    expect(r.topic, `reply to ${r.answers} in its command's topic`).toBe(topicOf.get(r.answers));
    byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r.answers]);
  }
  for (const [topic, answered] of byTopic)
    expect(answered, `replies in "${topic}" in command order`).toEqual(
      [...answered].sort((a, b) => a - b),
    );
}

/** Open handles by type (sockets, servers, timers), from `process.getActiveResourcesInfo()`. */
export function openHandles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo())
    counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** Types whose count grew between two `openHandles()` readings, with how many more. */
export function grownHandles(
  before: Map<string, number>,
  after: Map<string, number>,
): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [type, n] of after) {
    const more = n - (before.get(type) ?? 0);
    if (more > 0) grown[type] = more;
  }
  return grown;
}

/**
 * The bot.config.yaml of the chaos runs: the sandbox's bot in #general, file storage under
 * `data/`, JSON logs, no per-user rate limit (the load is the test, not abuse), one plugin file.
 */
export function fileStoreConfig(sandbox: Sandbox, pluginFile: string): string {
  return [
    ...sandboxServerLines(sandbox),
    "channels: [general]",
    "rateLimit: false",
    "storage: { type: file, path: data/bot.json }",
    "logging: { level: info, format: json }",
    `plugins: [./${pluginFile}]`,
    "",
  ].join("\n");
}
