// createTestBot: a sandbox, the real runtime over loopback HTTP, and a test that speaks as its people.
import { Writable } from "node:stream";
import type { ApiClient, ClientOptions } from "../client/client.js";
import type { UploadSource } from "../api/uploads.js";
import { createLogger, type Logger } from "../log/logger.js";
import { createBot, type Bot } from "../bot/bot.js";
import type { BotOptions } from "../bot/options.js";
import { checkPluginName, type Plugin, type PluginInstance } from "../bot/plugin.js";
import {
  startSandbox,
  type Sandbox,
  type SandboxAccount,
  type SandboxOptions,
} from "../sandbox/server.js";
import type { Realm } from "../sandbox/realm.js";
import { TestClock } from "./clock.js";
import {
  dialog,
  type DialogOptions,
  type DialogStep,
  type DirectOptions,
  type SendOptions,
} from "./dialog.js";
import { RealmObserver, type ObservedMessage, type ObservedUpload } from "./observe.js";
import { People, type NewUser } from "./people.js";
import { Replies, type ReplyOptions } from "./replies.js";
import { observeReports, type ObservedReport } from "./reports.js";
import type { Expectation } from "./transcript.js";
import { itemKey, pollOptions, todoTasks, zformChoices } from "./widgets.js";
import { createMemoryStore } from "../state/key-value/store.js";
import type { WidgetData } from "../api/submessages.js";
import { EDIT_GRACE_SECONDS } from "../sandbox/editRules.js";
import { setUpCassette, type CassetteOption, type CassettePlayback } from "./cassette.js";

export interface TestBotOptions {
  plugins?: (Plugin | PluginInstance)[];
  /** Runtime settings, as in bot.config.yaml. `rateLimit` is off unless given; `now` follows `t.clock`. */
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
    | "handlers"
    | "maxQueued"
    | "catchUpWindow"
    | "stopTimeoutMs"
    | "eventLoop"
    | "sendRetry"
    | "loopGuard"
    | "replyMemory"
    | "observer"
    | "schedules"
    | "webhooks"
    | "http"
  >;
  /** Client settings of the bot's connection (timeouts, retry policy, pacing). */
  client?: Omit<ClientOptions, "site" | "email" | "apiKey">;
  /** Where the fake clock starts: a date, epoch milliseconds or ISO text. Default: the real time. */
  now?: number | Date | string;
  /**
   * Sandbox settings. Reports go to a `moderation` channel unless `settings.moderationRequestChannel`
   * says otherwise; `settings.host` is the realm's host, the domain of every seeded email
   * (default `sandbox.test`: `mia@sandbox.test`).
   */
  sandbox?: SandboxOptions;
  /** The bot's full name, as mentions spell it (`@**test-bot**`). Default `Topic Bot`. */
  botName?: string;
  /** The bot's email. Default `bot-bot@<host>`. */
  botEmail?: string;
  /**
   * Replays a recorded cassette (`bot record`, docs/testing.md): `lockdown` answers the bot from
   * it, `redrive` seeds the sandbox from it; `t.cassette.play()` runs it.
   */
  cassette?: CassetteOption;
  /** Where the bot logs; default: kept in memory, warnings and errors shown by `t.errors()` and in failures. */
  logger?: Logger;
}

/** A scheduled message waiting on the server. */
export interface ObservedScheduled {
  id: number;
  senderId: number;
  content: string;
  /** When it will be sent. */
  at: Date;
  type: "channel" | "direct";
  channel?: string;
  topic?: string;
  userIds?: number[];
}

/** Where `t.move` takes a message: a new topic, another channel (by name), or both. */
export interface MoveTarget {
  topic?: string;
  channel?: string;
  /** Which messages go along; default `change_all` (the whole topic). */
  propagate?: "change_one" | "change_later" | "change_all";
  /** Who moves it; default `mia`. */
  as?: string;
  /** Notification Bot's notice in the old topic (default false) and the new one (default true). */
  notifyOld?: boolean;
  notifyNew?: boolean;
}

export interface TestBot {
  sandbox: Sandbox;
  realm: Realm;
  bot: Bot;
  /** The fake clock of the sandbox (scheduled messages), the bot (`now`) and cron jobs. */
  clock: TestClock;
  /** Sends a channel message as a human; returns its ID. Default: `mia` in `#general > test`. */
  send(content: string, options?: SendOptions): Promise<number>;
  /** Sends a direct message to the bot (and `to`) as a human; returns its ID. */
  dm(content: string, options?: DirectOptions): Promise<number>;
  /**
   * The bot's next message not yet returned; fails after the timeout showing the conversation.
   * A message sent while a `ctx.stream` ran is returned once that stream has ended, with its
   * final text (`edits`: what it showed before).
   */
  reply(options?: ReplyOptions): Promise<ObservedMessage>;
  /** The bot's next message, which must equal `expected` (a string) or match it (a RegExp). */
  expectReply(expected: Expectation, options?: ReplyOptions): Promise<ObservedMessage>;
  /** Waits until the bot has handled what was said, then fails if it said anything not yet consumed. */
  expectNoReply(options?: ReplyOptions): Promise<void>;
  /**
   * A conversation: each line is said in turn and the bot must answer exactly as given (a string,
   * a RegExp, a list of them for several messages, or `null` for silence). Fails when the bot is
   * silent, answers differently, or answers more than expected.
   */
  dialog(steps: DialogStep[], options?: DialogOptions): Promise<void>;
  /** Waits until the bot has finished with everything said so far. */
  settle(): Promise<void>;
  /** Every message the bot has sent so far, each showing its latest text (a stream's, as it grows). */
  botMessages(): ObservedMessage[];
  /** Marks every bot message so far as read (for `reply`) and returns the ones not read yet. */
  drain(): ObservedMessage[];
  /** Adds a reaction as a human (`as`, default `mia`). */
  react(messageId: number, emoji: string, options?: { as?: string }): Promise<void>;
  /**
   * Clicks a card's button as the web client does: sends the choice's `reply` text as `as`
   * (default `mia`) in the card's conversation, after a mention of the bot in a channel. `choice`
   * is the button's label or index; `card` a message ID or what `ctx.card` returned. Returns the
   * click's message ID.
   */
  click(
    card: number | { messageId: number },
    choice: string | number,
    options?: { as?: string },
  ): Promise<number>;
  /**
   * Stops the bot and starts a new one over the same storage (a restart, or a deploy);
   * `whileDown` runs in between (people keep talking, clicking and reacting). Resolves when the
   * new bot has started.
   */
  restart(options?: { whileDown?: () => Promise<unknown> }): Promise<void>;
  /** The reactions a message has now. */
  reactions(messageId: number): { emoji: string; userId: number; userName: string }[];
  /**
   * Votes in a poll (a message with `/poll` content) as a human (`as`, default `mia`), through
   * POST /submessage as the web app does: `option` is the option's text or index; `vote: -1`
   * takes a vote back.
   */
  vote(
    messageId: number,
    option: string | number,
    options?: { as?: string; vote?: 1 | -1 },
  ): Promise<void>;
  /** Ticks (or unticks) a task of a todo list (`/todo` content) as a human: its text or index. */
  strike(messageId: number, task: string | number, options?: { as?: string }): Promise<void>;
  /** Adds any submessage as a human (`msgType` default `widget`); data is sent as JSON. */
  submessage(
    messageId: number,
    data: WidgetData | Record<string, unknown> | string,
    options?: { as?: string; msgType?: string },
  ): Promise<void>;
  /** Edits a message's content as its sender (`as`, default `mia`); the edit window applies. */
  edit(messageId: number, content: string, options?: { as?: string }): Promise<void>;
  /**
   * Moves a message, and by default the whole topic (`propagate: "change_all"`), to another
   * topic and/or channel as a human (`as`, default `mia`): the bot receives `update_message`
   * events and Notification Bot's breadcrumbs, as on a real server.
   */
  move(messageId: number, to: MoveTarget): Promise<void>;
  /** Renames a topic (every message in it) as a human: `t.renameTopic("general", "test", "done")`. */
  renameTopic(
    channel: string,
    from: string,
    to: string,
    options?: { as?: string; notifyOld?: boolean; notifyNew?: boolean },
  ): Promise<void>;
  /** Moves the fake clock past the realm's edit window (its limit plus the server's grace). */
  passEditWindow(): Promise<void>;
  /** Uploads a file as a human; returns its URL. */
  upload(file: UploadSource, name: string, options?: { as?: string }): Promise<string>;
  /** Files uploaded since the harness started (by anyone), with their bytes. */
  uploads(): ObservedUpload[];
  /**
   * POSTs a JSON payload to one of the bot's webhook routes (`bot.webhook` or `webhooks:`) and
   * resolves with the HTTP status and body of the answer.
   */
  webhook(
    path: string,
    payload: unknown,
    options?: { headers?: Record<string, string> },
  ): Promise<{ status: number; body: string }>;
  /** Scheduled messages waiting to be sent (by anyone). */
  scheduled(): ObservedScheduled[];
  /** Reports posted to the moderation channel. */
  reports(): ObservedReport[];
  /** A seeded or created account. */
  user(handle: string): SandboxAccount;
  /** Adds a user (through the API, as the owner) to speak as. */
  createUser(init: NewUser): Promise<SandboxAccount>;
  /** Creates channel `name` (everyone subscribed) unless it exists. */
  channel(name: string): Promise<void>;
  /** A client logged in as a seeded or created user. */
  clientFor(handle: string): ApiClient;
  /** Warnings and errors the bot logged (plugin failures among them), when the harness owns the logger. */
  errors(): string[];
  /** The cassette's replay, when `cassette` was given. */
  cassette: CassettePlayback | undefined;
  /**
   * Stops the bot and the sandbox; safe to call twice. In lockdown it then fails if the bot sent
   * a request the cassette does not hold, naming it.
   */
  close(): Promise<void>;
}

const MODERATION_CHANNEL = "moderation";

/** A warn-level JSON logger writing into memory; `lines()` gives `msg (error message)` per line. */
function memoryLogger(): { logger: Logger; lines: () => string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString("utf8").split("\n")) {
        if (text.trim() === "") continue;
        try {
          const entry = JSON.parse(text) as { msg?: string; err?: { message?: string } };
          lines.push(entry.err?.message ? `${entry.msg}: ${entry.err.message}` : String(entry.msg));
        } catch {
          lines.push(text);
        }
      }
      callback();
    },
  });
  return {
    logger: createLogger({ level: "warn", format: "json", destination }),
    lines: () => [...lines],
  };
}

/**
 * Starts a sandbox and the real runtime against it over loopback HTTP, on a fake clock.
 *
 * @example
 * const t = await createTestBot({ plugins: [ping] });
 * await t.send("!ping");
 * await t.expectReply("pong");
 * await t.dialog([["!ping", "pong"], ["!help ping", /Check that the bot answers/]]);
 * await t.close();
 */
export async function createTestBot(options: TestBotOptions = {}): Promise<TestBot> {
  for (const p of options.plugins ?? []) checkPluginName("plugin" in p ? p.plugin.name : p.name);
  const clock = new TestClock(options.now);
  const recorded = options.cassette && setUpCassette(options.cassette);
  const settings = { moderationRequestChannel: MODERATION_CHANNEL, ...options.sandbox?.settings };
  const sandbox = await startSandbox({
    heartbeatSeconds: 10,
    // Moving the fake clock by hours must not collect the bot's queue.
    queueIdleTimeoutSeconds: 10 * 365 * 86_400,
    clock,
    ...options.sandbox,
    settings,
    bot: {
      fullName: options.botName ?? recorded?.bot.fullName,
      email: options.botEmail ?? recorded?.bot.email,
      ...options.sandbox?.bot,
    },
  });
  const { realm } = sandbox;
  if (
    settings.moderationRequestChannel === MODERATION_CHANNEL &&
    !realm.channelByName(MODERATION_CHANNEL)
  ) {
    const channel = realm.addChannel(MODERATION_CHANNEL, "Reports for the moderators");
    for (const handle of ["olivia", "adam", "max"])
      realm.subscribe(channel, sandbox.user(handle).userId);
  }
  recorded?.seed(realm, realm.users.get(sandbox.bot.userId)!);
  const memory = options.logger ? undefined : memoryLogger();
  const errors = (): string[] => memory?.lines() ?? [];
  const observer = new RealmObserver(realm);
  const uploads: ObservedUpload[] = [];
  observer.on("upload", (u) => uploads.push(u));
  const replies = new Replies({ realm, botId: sandbox.bot.userId, observer, errors });

  const people = new People(sandbox);
  const clientFor = (handle: string): ApiClient => people.client(handle);

  const storage = options.config?.storage ?? createMemoryStore(() => clock.now());
  const makeBot = (): Bot => {
    const made = createBot({
      server: {
        ...options.client,
        site: sandbox.url,
        email: sandbox.bot.email,
        apiKey: sandbox.bot.apiKey,
        ...(recorded?.wrapTransport && { wrapTransport: recorded.wrapTransport }),
      },
      plugins: options.plugins,
      logger: options.logger ?? memory!.logger,
      handleSignals: false,
      rateLimit: false,
      now: () => clock.now(),
      ...options.config,
      storage,
      // Webhook routes get a free loopback port; cron jobs and burst windows run on the fake clock.
      http: { port: 0, ...options.config?.http },
      schedulerClock: clock,
      observer: {
        ...options.config?.observer,
        overlapCalls: (running) => {
          replies.overlapCalls(running);
          options.config?.observer?.overlapCalls?.(running);
        },
      },
    });
    made.use(replies.tracker);
    made.on("message", replies.seen);
    return made;
  };
  let bot = makeBot();
  const closeAll = async (): Promise<void> => {
    observer.close();
    await people.close();
    await sandbox.close();
  };
  try {
    await bot.start();
  } catch (error) {
    await closeAll();
    throw error;
  }

  let closing: Promise<void> | undefined;
  let lastSent = 0;
  const said = (id: number): number => {
    lastSent = Math.max(lastSent, id);
    return id;
  };

  const t: TestBot = {
    sandbox,
    realm,
    get bot() {
      return bot;
    },
    clock,
    async send(content, { as = "mia", channel = "general", topic = "test" } = {}) {
      await people.channel(channel);
      const { id } = await clientFor(as).messages.send({
        type: "channel",
        to: channel,
        topic,
        content,
      });
      return said(id);
    },
    async dm(content, { as = "mia", to = [] } = {}) {
      const recipients = [sandbox.bot.userId, ...to.map((h) => people.account(h).userId)];
      const { id } = await clientFor(as).messages.send({ type: "direct", to: recipients, content });
      return said(id);
    },
    reply: (o) => replies.next(o),
    expectReply: (expected, o) => replies.expect(expected, o),
    async expectNoReply(o = {}) {
      if (lastSent) await replies.settle(lastSent, o.timeoutMs);
      replies.expectNothingMore("expectNoReply");
    },
    dialog: (steps, o) => dialog(t, replies, steps, o),
    async settle() {
      if (lastSent) await replies.settle(lastSent);
    },
    botMessages: () => replies.all(),
    drain: () => replies.drain(),
    async react(messageId, emoji, { as = "mia" } = {}) {
      await clientFor(as).messages.addReaction({
        message_id: messageId,
        emoji_name: emoji.replace(/^:|:$/g, ""),
      });
    },
    async click(card, choice, { as = "mia" } = {}) {
      const messageId = typeof card === "number" ? card : card.messageId;
      const choices = zformChoices(realm, messageId);
      const picked =
        typeof choice === "number" ? choices[choice] : choices.find((c) => c.label === choice);
      if (!picked)
        throw new Error(
          `click: message ${messageId} has no button ${JSON.stringify(choice)}; it has: ${choices.map((c) => JSON.stringify(c.label)).join(", ")}`,
        );
      const message = realm.message(messageId)!;
      const client = clientFor(as);
      if (message.streamId !== undefined) {
        const bot = realm.users.get(message.senderId)!;
        const { id } = await client.messages.send({
          type: "channel",
          to: message.streamId,
          topic: message.topic,
          content: `@**${bot.fullName}** ${picked.reply}`,
        });
        return said(id);
      }
      const clicker = people.account(as).userId;
      const to = message.recipients.filter((u) => u !== clicker);
      const { id } = await client.messages.send({ type: "direct", to, content: picked.reply });
      return said(id);
    },
    async restart({ whileDown } = {}) {
      await bot.stop();
      await whileDown?.();
      bot = makeBot();
      await bot.start();
    },
    reactions(messageId) {
      const message = realm.message(messageId);
      if (!message) throw new Error(`reactions: there is no message ${messageId}`);
      return message.reactions.map((r) => ({
        emoji: r.emojiName,
        userId: r.userId,
        userName: realm.users.get(r.userId)?.fullName ?? `user ${r.userId}`,
      }));
    },
    async vote(messageId, option, { as = "mia", vote = 1 } = {}) {
      const key = itemKey(pollOptions(realm, messageId), option, "poll option");
      await t.submessage(messageId, { type: "vote", key, vote }, { as });
    },
    async strike(messageId, task, { as = "mia" } = {}) {
      const key = itemKey(todoTasks(realm, messageId), task, "task");
      await t.submessage(messageId, { type: "strike", key }, { as });
    },
    async submessage(messageId, data, { as = "mia", msgType = "widget" } = {}) {
      await clientFor(as).messages.addSubmessage({
        message_id: messageId,
        msg_type: msgType,
        content: typeof data === "string" ? data : JSON.stringify(data),
      });
    },
    async edit(messageId, content, { as = "mia" } = {}) {
      await clientFor(as).messages.update({ message_id: messageId, content });
    },
    async move(messageId, to) {
      const { as = "mia", propagate = "change_all" } = to;
      let streamId: number | undefined;
      if (to.channel !== undefined) {
        await people.channel(to.channel);
        streamId = realm.channelByName(to.channel)!.streamId;
      }
      await clientFor(as).messages.update({
        message_id: messageId,
        ...(to.topic !== undefined && { topic: to.topic }),
        ...(streamId !== undefined && { stream_id: streamId }),
        propagate_mode: propagate,
        ...(to.notifyOld !== undefined && { send_notification_to_old_thread: to.notifyOld }),
        ...(to.notifyNew !== undefined && { send_notification_to_new_thread: to.notifyNew }),
      });
    },
    async renameTopic(channel, from, to, options = {}) {
      const where = realm.channelByName(channel);
      const last = where && realm.index.topic(where.streamId, from).at(-1);
      if (!last) throw new Error(`renameTopic: #${channel} > ${from} has no messages`);
      await t.move(last.id, { ...options, topic: to, propagate: "change_all" });
    },
    async passEditWindow() {
      const limit = realm.settings.messageContentEditLimitSeconds;
      if (limit === null) return;
      await clock.advance((limit + EDIT_GRACE_SECONDS + 1) * 1000);
    },
    async upload(file, name, { as = "mia" } = {}) {
      return (await clientFor(as).uploads.upload({ file, filename: name })).url;
    },
    uploads: () => [...uploads],
    async webhook(path, payload, { headers = {} } = {}) {
      const base = bot.webhookUrl;
      if (!base)
        throw new Error(
          `webhook ${path}: the bot has no webhook routes (declare one with bot.webhook)`,
        );
      const response = await fetch(new URL(path, base), {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(payload),
      });
      return { status: response.status, body: await response.text() };
    },
    scheduled: () =>
      [...realm.scheduler.pending.values()].map((s) => ({
        id: s.id,
        senderId: s.senderId,
        content: s.content,
        at: new Date(s.deliverAt * 1000),
        ...(s.kind === "stream"
          ? {
              type: "channel" as const,
              channel: realm.channels.get(s.streamId!)?.name,
              topic: s.topic,
            }
          : { type: "direct" as const, userIds: s.recipients }),
      })),
    reports: () => observeReports(realm),
    user: (handle) => people.account(handle),
    createUser: (init) => people.create(init),
    channel: (name) => people.channel(name),
    clientFor,
    errors,
    cassette: recorded?.playback(realm, async (id, timeoutMs) => {
      said(id);
      await replies.settle(id, timeoutMs);
    }),
    close() {
      closing ??= bot
        .stop()
        .then(closeAll)
        .then(() => recorded?.check());
      return closing;
    },
  };
  return t;
}
