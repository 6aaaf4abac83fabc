// The message context handed to middleware and handlers: the message, who sent it, where, and actions.
import type { ApiClient } from "../client/client.js";
import type { Message } from "../api/messages.js";
import type { UploadSource } from "../api/uploads.js";
import type { Logger } from "../log/logger.js";
import type { ContextState } from "../model/context-state.js";
import {
  editMessage,
  type EditChanges,
  type Widget,
  type SendTarget,
  type SentMessage,
} from "./actions.js";
import {
  flags,
  markTopicRead,
  react,
  report,
  schedule,
  unreact,
  upload,
  type FlagsRequest,
  type FlagsResult,
  type MessageRef,
  type ReportType,
  type ScheduleTarget,
  type Upload,
} from "./chat-actions.js";
import { pollContent } from "./widgets.js";
import type { CommandInvocation } from "../model/command.js";
import { conversationKey, conversationOf, type Conversation } from "../model/conversation.js";
import type { Addressing, BotAccount } from "../model/account.js";
import { openSession, sessionKey, type Session } from "./session.js";
import { canUserPostTo, canUserSee } from "./visibility.js";
import {
  streamToConversation,
  type ContextStreamOptions,
  type StreamResult,
  type TextSource,
} from "./stream.js";
import { fetchHistory, type HistoryOptions, type Turn } from "./history.js";
import type { FollowOptions } from "./follows.js";
import type {
  ApprovalDecision,
  ApproveOptions,
  Card,
  CardOrigin,
  CardSpec,
  PollOptions,
} from "../model/cards.js";
import { sentPoll } from "./polls.js";
import {
  dialogKey,
  type AskOptions,
  type ContextInitOf,
  type ContextServicesOf,
  type ContextTurn,
  type Poll,
  senderOf,
  type Sender,
  type SendGuardOf,
} from "./context-types.js";
import { ContextSend, sentMessage } from "./context-send.js";
import { askAndWait } from "./answers.js";

const NO_FOLLOWERS: readonly string[] = Object.freeze([]);
/** Shared by every context outside an overlap strategy's calls: no per-message allocation. */
const NO_MESSAGES: readonly Message[] = Object.freeze([]);

/** A part of the bot that `ctx.<action>()` needs, which a context built outside a bot lacks. */
function needsBot<T>(part: T | undefined, action: string): T {
  if (part !== undefined) return part;
  throw new Error(`ctx.${action}() needs a running bot (this context has none)`);
}

// The send guard, the bot's services and a context's making, for `MessageContext` (context-types.ts).
export type SendGuard = SendGuardOf<MessageContext>;
export type ContextServices = ContextServicesOf<MessageContext>;
export type ContextInit = ContextInitOf<MessageContext>;

/**
 * What a handler gets for one message. One instance per message; its parts (sender, conversation,
 * logger, state, sessions) are built on first use, and its actions live on the prototype, because
 * this object is made for every event and most handlers read two or three fields of it.
 *
 * @example
 * bot.hear(/^hi$/i, async (ctx) => {
 *   await ctx.react("wave");
 *   await ctx.reply(`Hello ${ctx.sender.fullName}, it is ${ctx.now().toISOString()}`);
 * });
 */
export class MessageContextObject {
  /** The message as the server delivered it. */
  readonly message: Message;
  /** The event's personal flags for the bot (`mentioned`, `read`, ...); `flags()` changes flags. */
  readonly messageFlags: string[];
  /** A direct message (one-to-one or group) rather than a channel message. */
  readonly isDirect: boolean;
  /** The message starts with a mention of the bot. */
  readonly isMention: boolean;
  /** How the gate let the message through; null when it did not (only with `respondTo: all`). */
  readonly addressedVia: Addressing["via"];
  /** The text meant for the bot: content without the leading mention or prefix. */
  text: string;
  /** Set by the router when a command matched. */
  command?: CommandInvocation;
  /** Set by `hear` when its pattern matched. */
  match?: RegExpExecArray;
  /** The plugin whose handler is running; set by the router. */
  plugin?: string;
  /** The plugins following this conversation (`ctx.follow()`); set before the gate. */
  followedBy: readonly string[] = NO_FOLLOWERS;
  /**
   * Messages of this conversation that the handler's overlap strategy folded into this call
   * (`latest`, `burst`, `interrupt`), oldest first; empty under `queue`. See docs/agents.md.
   */
  skipped: readonly Message[] = NO_MESSAGES;
  /** Set by `ask` once the question is out: the message no longer holds its slot (time limits stop). */
  waitingForAnswer = false;
  /** The signal handed out (`signal`), made on first read. */
  #signal: AbortSignal | undefined = undefined;
  /** The controller of `#signal` when this context made it (not an overlap call's). */
  #abort: AbortController | undefined = undefined;
  readonly #services: ContextServices;
  readonly #turn: ContextTurn | undefined;
  readonly #replyVia: ContextInit["replyVia"];
  #conversation: Conversation | undefined = undefined;
  #sender: Sender | undefined = undefined;
  #log: Logger | undefined = undefined;
  #state: ContextState | undefined = undefined;
  #sends = 0;
  /** Cards and approvals this handling made, counted from 0 (their journal keys). */
  #cardsMade = 0;
  #replied = false;

  constructor(init: ContextInit) {
    this.message = init.message;
    this.messageFlags = init.flags;
    this.isDirect = init.message.type === "private";
    this.isMention = init.addressing.isMention;
    this.addressedVia = init.addressing.via;
    this.text = init.addressing.text;
    this.#services = init.services;
    this.#turn = init.turn;
    this.#replyVia = init.replyVia;
  }

  /** Who sent the message. */
  get sender(): Sender {
    return (this.#sender ??= senderOf(this.message));
  }

  /**
   * Where the message was sent: a channel topic or a direct-message group; after its topic moved
   * while `ask` waited, where the topic went (so the replies that follow go there too).
   */
  get conversation(): Conversation {
    return (this.#conversation ??= conversationOf(this.message));
  }

  /**
   * The conversation's topic moved (renamed, or moved to another channel) while this context's
   * handler runs: from now on `conversation` and the replies go to `to`. `message` stays as
   * delivered.
   */
  relocate(to: Conversation): void {
    this.#conversation = to;
  }

  /** The bot's own account: ID, email, name and its mention strings (`@**Name**`, `@_**Name**`). */
  get me(): BotAccount {
    return this.#services.me;
  }

  /** The full typed client, for every endpoint without an action. */
  get api(): ApiClient {
    return this.#services.api;
  }

  /** The bot's configured time zone (IANA), in which `schedule` reads human times. */
  get timeZone(): string {
    return this.#services.timeZone;
  }

  /** A logger tagged with the message ID (made on first use: most messages are never logged about). */
  get log(): Logger {
    return (this.#log ??= this.#services.log.child({ messageId: this.message.id }));
  }

  set log(value: Logger) {
    this.#log = value;
  }

  /** What middleware passes on to handlers; its keys are the bot's own (see ContextState). */
  get state(): ContextState {
    return (this.#state ??= {});
  }

  set state(value: ContextState) {
    this.#state = value;
  }

  /** The handling plugin's state for this conversation (channel topic or DM group). */
  get session(): Session {
    return this.#sessionOf(undefined);
  }

  /** The handling plugin's state for this sender in this conversation. */
  get userSession(): Session {
    return this.#sessionOf(this.message.sender_id);
  }

  /**
   * The bot's current time, from its clock (`createBot({ now })`, the harness's fake clock in
   * tests), not the message's timestamp.
   *
   * @example
   * const hour = ctx.now().getUTCHours();
   */
  now(): Date {
    return new Date(this.#services.now());
  }

  /**
   * Aborted when the handler's time limit runs out (the reason a `HandlerTimeoutError`), or when a
   * newer message interrupts this call (`overlap: "interrupt"`). Pass it on to what the handler
   * waits for (`fetch(url, { signal: ctx.signal })`). Made on first read: most handlers never ask.
   */
  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      this.#abort = new AbortController();
      this.#signal = this.#abort.signal;
    }
    return this.#signal;
  }

  set signal(signal: AbortSignal) {
    this.#signal = signal;
    this.#abort = undefined;
  }

  /** Aborts `signal` with `reason` (the runtime does, when a time limit runs out). Once. */
  cancel(reason: unknown): void {
    if (this.#signal === undefined) this.#signal = AbortSignal.abort(reason);
    else if (this.#abort !== undefined) this.#abort.abort(reason);
  }

  /**
   * Sends to the same topic, or the same direct-message group; long content is split. A
   * `widget` (see `poll`) goes with the first message.
   *
   * @example
   * const sent = await ctx.reply("Working on it...");
   * await sent.edit({ content: "Done." });
   */
  reply(content: string, options: { widget?: Widget } = {}): Promise<SentMessage> {
    return this.#deliver("reply", undefined, content, options.widget);
  }

  /**
   * Sends to any channel topic or users. A `to` that is an email address is a direct message.
   *
   * @example
   * await ctx.send({ to: "general", topic: "deploys", content: "v2 is out" });
   * await ctx.send({ to: [ctx.sender.userId], content: "psst" });
   * await ctx.send({ to: "someone@example.com", content: "hi" });
   */
  send(target: SendTarget): Promise<SentMessage> {
    return this.#deliver("send", target, target.content, target.widget);
  }

  /**
   * Edits a message by ID (the server's rules apply: a bot edits the content of its own
   * messages; topics as the organization's policy allows). Resolves when the server accepted.
   *
   * @example
   * await ctx.edit(sent.id, { content: "updated" });
   * await ctx.edit(ctx.message.id, { topic: "moved here", propagate: "change_all" });
   */
  edit(messageId: number, changes: EditChanges): Promise<void> {
    return editMessage(this.#services, messageId, changes);
  }

  /**
   * Replies with a poll widget that people vote in, and hands back the message with `tally()`
   * (the votes counted now, as the web client counts them). With `action`, each vote runs that
   * action (`bot.action`) once, its arguments the option's text, for voters `allow` admits.
   *
   * @example
   * const poll = await ctx.poll("Lunch?", ["Pizza", "Sushi"]);
   * const { options } = await poll.tally(); // [{ text: "Pizza", votes: 2, ... }, ...]
   */
  async poll(
    question: string,
    options: readonly string[],
    settings: PollOptions = {},
  ): Promise<Poll> {
    const sent = await this.reply(pollContent(question, options));
    if (settings.action !== undefined) {
      const cards = needsBot(this.#services.cards, "poll");
      await cards.watchPoll(this.#origin(), sent.id, [...options], settings);
    }
    return sentPoll(this.#services.api, sent);
  }

  /**
   * Posts a card: its Markdown lists every choice as a command one can type (and its reaction
   * chip), with a zform on top whose buttons the web client draws. A click runs the choice's
   * action (`bot.action`) once, after the card's checks (token, expiry, single use, `allow`).
   *
   * @example
   * await ctx.card({
   *   heading: "Deploy v1.2?",
   *   choices: [{ label: "Deploy", action: "deploy", args: "v1.2", emoji: "rocket" }],
   *   allow: { roles: ["administrator"] },
   *   expires: "1h",
   * });
   */
  card(spec: CardSpec): Promise<Card> {
    return needsBot(this.#services.cards, "card").card(this.#origin(), spec);
  }

  /**
   * Asks for an approval with an Approve / Reject card and waits (for days, across restarts:
   * after a restart the handler runs again for the same message, and this call returns the
   * decision at once; replies before it are not sent twice). Resolves `expired` after `expires`.
   *
   * @example
   * const decision = await ctx.approve("Deploy v1.2?", { approvers: { users: oncall }, expires: "1d" });
   * if (decision.approved) await deploy("v1.2");
   */
  approve(question: string, options: ApproveOptions = {}): Promise<ApprovalDecision> {
    return needsBot(this.#services.cards, "approve").approve(this.#origin(), question, options);
  }

  /** This context as the card service sees it. */
  #origin(): CardOrigin {
    return {
      message: this.message,
      messageFlags: this.messageFlags,
      plugin: this.plugin,
      post: (content, widget) =>
        this.#deliver("reply", undefined, content, widget as unknown as Widget),
      skipSend: () => void this.#sends++,
      nextApproval: () => this.#cardsMade++,
      suspend: () => this.#suspend(),
    };
  }

  /** The handler waits for people (an answer, an approval): the message no longer holds its slot. */
  #suspend(): void {
    this.waitingForAnswer = true;
    this.#turn?.suspend();
  }

  /** Adds an emoji reaction (by name, e.g. `thumbs_up`) to the message handled, or to `message`. */
  react(emoji: string, options: { message?: MessageRef } = {}): Promise<void> {
    return react(this.#services, options.message ?? this.message, emoji);
  }

  /** Removes the bot's emoji reaction from the message handled, or from `message`. */
  unreact(emoji: string, options: { message?: MessageRef } = {}): Promise<void> {
    return unreact(this.#services, options.message ?? this.message, emoji);
  }

  /**
   * Schedules a message to this conversation, or to `target`, for `at`: a Date, UNIX seconds, or
   * a human time (`in 10 minutes`, `tomorrow 9:00`) in the bot's time zone. Returns its ID.
   * The server takes IDs only: a channel ID with a topic, or user IDs.
   */
  schedule(
    content: string,
    at: Date | number | string,
    target?: ScheduleTarget,
  ): Promise<{ scheduledMessageId: number }> {
    return schedule(this.#services, this.conversation, content, at, target);
  }

  /** Marks this channel topic as read for the bot. */
  markTopicRead(): Promise<void> {
    return markTopicRead(this.#services, this.conversation);
  }

  /** Uploads a file and returns its URL and a Markdown link `[name](url)`. */
  upload(file: UploadSource, name: string): Promise<Upload> {
    return upload(this.#services, file, name);
  }

  /** Reports the message being handled to the moderators. */
  report(type: ReportType, description?: string): Promise<void> {
    return report(this.#services, this.message, type, description);
  }

  /** Adds or removes a personal flag (`read`, `starred`, ...) over the messages of a narrow. */
  flags(request: FlagsRequest): Promise<FlagsResult> {
    return flags(this.#services, request);
  }

  /**
   * Asks the sender a question here and waits for their next message in this conversation,
   * which is then not routed as a command. Resolves undefined after the timeout.
   *
   * @example
   * const answer = await ctx.ask("What's your name?", { timeoutMs: 60_000 });
   * await ctx.reply(answer ? `Hello, ${answer.text}!` : "Never mind.");
   */
  ask(question: string, options: AskOptions = {}): Promise<MessageContext | undefined> {
    const key = dialogKey(this.conversation, this.message.sender_id);
    return askAndWait(this.#services.dialogs, key, question, options, {
      post: (text) => this.reply(text),
      relocate: (to) => this.relocate(to),
      waiting: () => this.#suspend(),
    });
  }

  /**
   * Whether the sender can see message `messageId` (DMs: participants; channels: by the server's
   * access rules, guests only where subscribed). Check before acting on an ID a user gave.
   *
   * @example
   * if (!(await ctx.canSee(id))) return ctx.reply("You can't see that message.");
   */
  canSee(messageId: number): Promise<boolean> {
    return canUserSee(this.#services.api, this.message.sender_id, messageId);
  }

  /**
   * Whether the sender could post to channel `channelId` themselves (subscribed, or a member and
   * the channel public; within its posting policy). Check before posting for a user into a
   * channel they named.
   *
   * @example
   * if (!(await ctx.canPostTo(channel.stream_id))) return ctx.reply("You can't post there.");
   */
  canPostTo(channelId: number): Promise<boolean> {
    return canUserPostTo(this.#services.api, this.message.sender_id, channelId);
  }

  /**
   * Streams an answer: posts the first text as it arrives, then edits the message as more comes
   * (paced by the server's rate limits), continuing in a new message past the length limit; a
   * failing source leaves the text so far and a marker. The bot shows "typing" meanwhile. Handled
   * again after a crash, the stream edits the message it posted then instead of posting twice.
   *
   * @example
   * const result = await ctx.stream(model.textStream);
   * if (!result.complete) ctx.log.warn({ err: result.error }, "the model stopped early");
   */
  stream(source: TextSource, options: ContextStreamOptions = {}): Promise<StreamResult> {
    // Edited as the text arrives: recognised after a crash by its place, not its content.
    const post = (content: string): Promise<SentMessage> =>
      this.#deliver("reply", undefined, content, undefined, { willEdit: true });
    return streamToConversation(this.#services, this.message, this.conversation, post, source, {
      // A cut answer ends with a marker the user reads; the log says why it was cut.
      onCut: (reason, detail) =>
        this.log.warn({ ...detail, messageId: this.message.id }, `streamed answer cut: ${reason}`),
      ...options,
    });
  }

  /**
   * This conversation's messages before the one handled, as turns for a language model (the
   * bot's own are `assistant`), plain text, newest kept within `limit` and `maxChars`. Only
   * what the sender could read: in a private channel with protected history, their own messages.
   *
   * @example
   * const turns = await ctx.history({ limit: 20 });
   * const messages = turns.map((t) => ({ role: t.role, content: `${t.name}: ${t.text}` }));
   */
  history(options: Omit<HistoryOptions, "before"> = {}): Promise<Turn[]> {
    return fetchHistory(
      this.api,
      this.conversation,
      this.me.userId,
      { ...options, before: this.message.id },
      this.message.sender_id,
    );
  }

  /**
   * Follows this conversation for the handling plugin: its `bot.followed` handler gets every
   * message here, addressed or not, until `unfollow()` or `idleMinutes` without a message.
   * Kept in the bot's storage, so a restart keeps it.
   *
   * @example
   * bot.command("join", {}, async (ctx) => { await ctx.follow({ idleMinutes: 30 }); await ctx.reply("I'm listening."); });
   * bot.followed((ctx) => ctx.reply(`Noted: ${ctx.text}`));
   */
  follow(options: FollowOptions = {}): Promise<void> {
    const follows = needsBot(this.#services.follows, "follow");
    return follows.follow(conversationKey(this.conversation), this.plugin ?? "bot", options);
  }

  /** Stops following this conversation (see `follow`). */
  unfollow(): Promise<void> {
    const follows = needsBot(this.#services.follows, "unfollow");
    return follows.unfollow(conversationKey(this.conversation), this.plugin ?? "bot");
  }

  #sessionOf(userId: number | undefined): Session {
    const store = this.#services.sessions.namespace(this.plugin ?? "bot");
    return openSession(store, sessionKey({ conversation: this.conversation, userId }));
  }

  /** Posts a reply or a send through the guard, and hands back what was sent with its `edit`. */
  async #deliver(
    kind: "reply" | "send",
    target: SendTarget | undefined,
    content: string,
    widget: Widget | undefined,
    how?: { willEdit?: boolean },
  ): Promise<SentMessage> {
    const env = this.#services;
    const send = new ContextSend(
      env,
      kind,
      how?.willEdit === true,
      target === undefined ? this.conversation : undefined,
      target,
      content,
      widget,
      kind === "reply" ? this.#replyVia : undefined,
    );
    const n = this.#sends++;
    const sent = env.guard ? await env.guard(this, n, send) : await send.post();
    if (kind === "reply" && !this.#replied) {
      this.#replied = true;
      const arrivedAt = this.#turn?.arrivedAt;
      if (arrivedAt !== undefined) env.firstReply?.(this, arrivedAt);
    }
    return sentMessage(env, sent);
  }
}

/**
 * What a handler gets for one message: the public members of `MessageContextObject`. A type of
 * its own so that narrowed contexts (`CommandContext`, `Omit<MessageContext, ...>`) stay
 * assignable to it, which a class with private fields would not allow.
 */
export type MessageContext = { [K in keyof MessageContextObject]: MessageContextObject[K] };

/**
 * Builds the context of one message.
 *
 * @example
 * const ctx = createMessageContext({ message, flags: [], addressing, services });
 */
export function createMessageContext(init: ContextInit): MessageContext {
  return new MessageContextObject(init);
}
