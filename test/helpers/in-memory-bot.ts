// A bot fed by pushed event batches and answering through an in-memory client: benches and tests drive the runtime without a server.
import { MockAgent } from "undici";
import { createClient, type ApiClient } from "../../src/client/client.js";
import type { AnyEvent, Registration } from "../../src/api/events.js";
import type { EventSink, EventSource } from "../../src/inbound/event-queue.js";
import { createBot, type Bot } from "../../src/bot/bot.js";
import type { BotOptions } from "../../src/bot/options.js";
import type { Plugin } from "../../src/bot/plugin.js";
import { apiUser } from "./fixtures.js";

/** An event source a bench or test pushes batches into, the seam `createBot({ events })` offers. */
export class PushSource implements EventSource {
  #sink: EventSink | undefined;
  readonly #abort = new AbortController();

  async start(sink: EventSink): Promise<Registration> {
    this.#sink = sink;
    return {
      queue_id: "bench",
      last_event_id: -1,
      zulip_feature_level: 400,
      max_message_length: 10_000,
    } as Registration;
  }

  /** Hands a batch to the runtime; resolves when the runtime lets the next poll go. */
  async push(events: AnyEvent[]): Promise<void> {
    if (!this.#sink) throw new Error("the bot has not started");
    await this.#sink(events, this.#abort.signal);
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    this.#sink = undefined;
  }
}

export const BOT_ID = 1000;

/** A channel message event as the server delivers it. */
export function messageEvent(
  id: number,
  senderId: number,
  topic: string,
  content: string,
): AnyEvent {
  return {
    id,
    type: "message",
    flags: [],
    message: {
      id,
      type: "stream",
      stream_id: 1,
      display_recipient: "general",
      subject: topic,
      content,
      timestamp: 1_700_000_000 + id,
      sender_id: senderId,
      sender_email: `user${senderId}@bench.invalid`,
      sender_full_name: `User ${senderId}`,
      reactions: [],
      submessages: [],
      topic_links: [],
    },
  };
}

/**
 * A real client whose requests go to an undici MockAgent: GET /users/me answers with the bot,
 * POST /messages counts into `sent` and answers with a fresh ID. Nothing leaves the process.
 */
export function inMemoryClient(make: typeof createClient = createClient): {
  client: ApiClient;
  sent: () => number;
  close(): Promise<void>;
} {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const origin = agent.get("http://bench.invalid");
  origin
    .intercept({ path: "/api/v1/users/me", method: "GET" })
    .reply(200, {
      result: "success",
      msg: "",
      ...apiUser(BOT_ID, {
        email: "bot@bench.invalid",
        delivery_email: "bot@bench.invalid",
        full_name: "Bench Bot",
        is_bot: true,
        timezone: "UTC",
      }),
    })
    .persist();
  let sent = 0;
  origin
    .intercept({ path: "/api/v1/messages", method: "POST" })
    .reply(200, () => ({ result: "success", msg: "", id: 1_000_000 + ++sent }))
    .persist();
  const client = make({
    site: "http://bench.invalid",
    email: "bot@bench.invalid",
    apiKey: "bench-key",
    dispatcher: agent,
  });
  return { client, sent: () => sent, close: () => agent.close() };
}

/**
 * A started bot with `plugin`, fed by a PushSource and answering through the in-memory client.
 * Rate limits are off, and so is the loop guard: the synthetic senders are unknown to the
 * in-memory server, so the guard would count every reply as unsolicited and pause the plugin.
 */
export async function startInMemoryBot(
  plugin: Plugin,
  /** Which build of topicbot: the TypeScript sources by default, or e.g. the built package's. */
  build: { createBot: typeof createBot; createClient: typeof createClient } = {
    createBot,
    createClient,
  },
  /** Bot options beside those above, e.g. `concurrency`. */
  options: Partial<Pick<BotOptions, "concurrency" | "respondTo">> = {},
): Promise<{
  bot: Bot;
  events: PushSource;
  sent: () => number;
  close(): Promise<void>;
}> {
  const { client, sent, close } = inMemoryClient(build.createClient);
  const events = new PushSource();
  const bot = build.createBot({
    client,
    events,
    plugins: [plugin],
    rateLimit: false,
    loopGuard: false,
    handleSignals: false,
    timeZone: "UTC",
    ...options,
  });
  await bot.start();
  return {
    bot,
    events,
    sent,
    async close() {
      await bot.stop();
      await close();
    },
  };
}
