// topicbot/testing: run plugins against the embedded sandbox and talk to them as a human would.
import { createClient, type ApiClient, type ClientOptions } from "../client/client.js";
import { createBot, type Bot, type BotOptions } from "../runtime/bot.js";
import type { Plugin, PluginInstance } from "../runtime/plugin.js";
import { startSandbox, type Sandbox, type SandboxOptions } from "../sandbox/server.js";
import type { StoredMessage } from "../sandbox/realm.js";
import type { Logger } from "../log/logger.js";

export interface TestBotOptions {
  plugins?: (Plugin | PluginInstance)[];
  /** Runtime settings, as in bot.config.yaml. `rateLimit` is off unless given. */
  config?: Pick<
    BotOptions,
    | "prefix"
    | "respondTo"
    | "errorReply"
    | "timeZone"
    | "rateLimit"
    | "unknownCommandReply"
    | "now"
    | "storage"
    | "concurrency"
    | "maxQueued"
    | "catchUpWindow"
    | "stopTimeoutMs"
    | "eventLoop"
    | "sendRetry"
    | "loopGuard"
    | "replyMemory"
  >;
  /** Client settings of the bot's connection (timeouts, retry policy, pacing). */
  client?: Omit<ClientOptions, "site" | "email" | "apiKey">;
  sandbox?: SandboxOptions;
  logger?: Logger;
}

/** A message as the harness shows it. */
export interface ObservedMessage {
  id: number;
  senderId: number;
  senderName: string;
  content: string;
  type: "channel" | "direct";
  channel?: string;
  topic?: string;
  /** For direct messages: every participant's user ID. */
  userIds?: number[];
}

export interface SendOptions {
  /** Seeded user handle to speak as: `olivia`, `adam`, `max`, `mia` (default), `gus`. */
  as?: string;
  channel?: string;
  topic?: string;
}

export interface TestBot {
  sandbox: Sandbox;
  bot: Bot;
  /** Sends a channel message as a human; returns its ID. Default: `mia` in `general` > `test`. */
  send(content: string, options?: SendOptions): Promise<number>;
  /** Sends a direct message to the bot (and `to`, if given) as a human; returns its ID. */
  dm(content: string, options?: { as?: string; to?: string[] }): Promise<number>;
  /** The bot's next message not yet returned by `reply`; fails after `timeoutMs` showing the conversation. */
  reply(options?: { timeoutMs?: number }): Promise<ObservedMessage>;
  /** Every message the bot has sent so far. */
  botMessages(): ObservedMessage[];
  /** A client logged in as a seeded user. */
  clientFor(handle: string): ApiClient;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * Starts a sandbox and the real runtime against it over loopback HTTP.
 *
 * @example
 * const t = await createTestBot({ plugins: [ping] });
 * await t.send("!ping");
 * expect((await t.reply()).content).toBe("pong");
 * await t.close();
 */
export async function createTestBot(options: TestBotOptions = {}): Promise<TestBot> {
  const sandbox = await startSandbox({ heartbeatSeconds: 10, ...options.sandbox });
  const { realm } = sandbox;
  const observe = (m: StoredMessage): ObservedMessage => {
    const sender = realm.users.get(m.senderId)!;
    const base = {
      id: m.id,
      senderId: m.senderId,
      senderName: sender.fullName,
      content: m.content,
    };
    return m.kind === "stream"
      ? { ...base, type: "channel", channel: realm.channels.get(m.streamId!)?.name, topic: m.topic }
      : { ...base, type: "direct", userIds: m.recipients };
  };

  const fromBot: ObservedMessage[] = [];
  let consumed = 0;
  let wake: (() => void) | undefined;
  const unsubscribe = realm.onMessage((m) => {
    if (m.senderId !== sandbox.bot.userId) return;
    fromBot.push(observe(m));
    wake?.();
  });

  const clients = new Map<string, ApiClient>();
  const clientFor = (handle: string): ApiClient => {
    let client = clients.get(handle);
    if (!client) {
      const account = sandbox.user(handle);
      client = createClient({ site: sandbox.url, email: account.email, apiKey: account.apiKey });
      clients.set(handle, client);
    }
    return client;
  };

  const bot = createBot({
    server: {
      ...options.client,
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    },
    plugins: options.plugins,
    logger: options.logger,
    handleSignals: false,
    rateLimit: false,
    ...options.config,
  });
  try {
    await bot.start();
  } catch (error) {
    unsubscribe();
    await sandbox.close();
    throw error;
  }

  const transcript = (): string =>
    realm.messages
      .slice(-10)
      .map((m) => {
        const o = observe(m);
        const where =
          o.type === "channel" ? `#${o.channel} > ${o.topic}` : `DM ${o.userIds?.join(",")}`;
        return `  [${where}] ${o.senderName}: ${o.content}`;
      })
      .join("\n");

  return {
    sandbox,
    bot,
    clientFor,
    async send(content, { as = "mia", channel = "general", topic = "test" } = {}) {
      const { id } = await clientFor(as).messages.send({
        type: "channel",
        to: channel,
        topic,
        content,
      });
      return id;
    },
    async dm(content, { as = "mia", to = [] } = {}) {
      const recipients = [sandbox.bot.userId, ...to.map((h) => sandbox.user(h).userId)];
      const { id } = await clientFor(as).messages.send({ type: "direct", to: recipients, content });
      return id;
    },
    async reply({ timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
      const deadline = Date.now() + timeoutMs;
      while (consumed >= fromBot.length) {
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(
            `the bot sent no reply within ${timeoutMs} ms. Last messages:\n${transcript() || "  (none)"}`,
          );
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
      return fromBot[consumed++]!;
    },
    botMessages: () => [...fromBot],
    async close() {
      unsubscribe();
      await bot.stop();
      await Promise.all([...clients.values()].map((c) => c.close()));
      await sandbox.close();
    },
  };
}
