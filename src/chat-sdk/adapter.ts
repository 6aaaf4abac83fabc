// The Zulip adapter for Chat SDK: its Adapter calls mapped to topicbot's client, replies through the handled message's context.
import { AsyncLocalStorage } from "node:async_hooks";
import {
  BaseFormatConverter,
  Message as ChatMessage,
  NotImplementedError,
  parseMarkdown,
  stringifyMarkdown,
  type Adapter,
  type AdapterPostableMessage,
  type ChatInstance,
  type EmojiValue,
  type FetchOptions,
  type FetchResult,
  type FormattedContent,
  type RawMessage,
  type Root,
  type StreamChunk,
  type StreamOptions,
  type ThreadInfo,
} from "chat";
import type { Message } from "../api/messages.js";
import type { ApiClient } from "../client/client.js";
import { ApiError } from "../client/errors.js";
import type { MessageContext } from "../context/context.js";
import type { BotAccount } from "../model/account.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import { KeyedPosts } from "./keyed-posts.js";
import { conversationOf } from "../model/conversation.js";
import {
  channelIdFromThreadId,
  decodeThreadId,
  narrowOf,
  encodeThreadId,
  threadOf,
  type ZulipThread,
} from "./thread-id.js";

/** Zulip Markdown is CommonMark with extensions: parsed and written as Markdown. */
class ZulipFormatConverter extends BaseFormatConverter {
  toAst(platformText: string): Root {
    return parseMarkdown(platformText);
  }
  fromAst(ast: Root): string {
    return stringifyMarkdown(ast);
  }
}

const emojiName = (emoji: EmojiValue | string): string =>
  typeof emoji === "string" ? emoji.replace(/^:|:$/g, "") : emoji.name;

/** Runs `action`; the server refusing it with `code` means its effect is already there. */
async function settled(code: string, action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (!(error instanceof ApiError && error.code === code)) throw error;
  }
}

function messageId(id: string): number {
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new TypeError(`chat-sdk: "${id}" is not a Zulip message ID`);
  return n;
}

function sameThread(a: ZulipThread, b: ZulipThread): boolean {
  if (a.type === "channel" && b.type === "channel")
    return a.streamId === b.streamId && a.topic.toLowerCase() === b.topic.toLowerCase();
  if (a.type === "direct" && b.type === "direct")
    return a.userIds.length === b.userIds.length && a.userIds.every((id, i) => id === b.userIds[i]);
  return false;
}

export interface ZulipAdapterOptions {
  /** The bot's name as Chat SDK knows it (default: the bot account's full name, once attached). */
  userName?: string;
  /**
   * How long a subscribed thread is followed without a message, in minutes (topicbot's
   * `ctx.follow({ idleMinutes })`). Chat SDK's subscriptions do not expire; topicbot's follows
   * do, at most after a year, which is the default.
   */
  subscriptionIdleMinutes?: number;
}

const A_YEAR_IN_MINUTES = 60 * 24 * 365;

/**
 * Chat SDK's `Adapter` for Zulip. It receives no webhooks: `chatSdkPlugin` hands it each message
 * topicbot delivers. While a message is handled, what the bot posts to that message's thread goes
 * through the message's context (`ctx.reply`, `ctx.send`: exactly once across restarts); outside
 * one (a cron job, another process) it goes straight to the client, with no such guarantee.
 */
export class ZulipAdapter implements Adapter<ZulipThread, Message> {
  readonly name = "zulip";
  readonly lockScope = "thread" as const;
  readonly #converter = new ZulipFormatConverter();
  readonly #handling = new AsyncLocalStorage<MessageContext>();
  #userName: string | undefined;
  #api: ApiClient | undefined;
  #account: (() => BotAccount) | undefined;
  readonly #idleMinutes: number;

  constructor(options: ZulipAdapterOptions = {}) {
    this.#userName = options.userName;
    this.#idleMinutes = options.subscriptionIdleMinutes ?? A_YEAR_IN_MINUTES;
  }

  /** The bot's account once the bot has started (its registration names it). */
  get #me(): BotAccount | undefined {
    try {
      return this.#account?.();
    } catch {
      return undefined; // the bot has not started yet
    }
  }

  get userName(): string {
    return this.#userName ?? this.#me?.fullName ?? "bot";
  }

  get botUserId(): string | undefined {
    const me = this.#me;
    return me ? String(me.userId) : undefined;
  }

  /** Binds the adapter to a bot's client, account and storage (the plugin does, in its setup). */
  attach(api: ApiClient, account: () => BotAccount, store?: KeyValueStore): void {
    this.#api = api;
    this.#account = account;
    if (store) this.#keyed = new KeyedPosts(store, api, () => this.#me?.userId);
  }

  #keyed: KeyedPosts | undefined;

  /**
   * Runs `work` with its posts outside a handled message made exactly once by `key`: run again
   * with the same key (a retried job, a restarted process), a post already made is not made
   * again, and one whose send a crash interrupted is looked for before it is sent. Chat SDK's
   * `post` takes no key of its own, so the key is given around it.
   *
   * @example
   * await adapter.once(`digest:${day}`, () => chat.thread(threadId).post(digest));
   */
  once<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (!this.#keyed)
      throw new Error(
        "chat-sdk: once() before the bot started (add chatSdkPlugin(...) to its plugins)",
      );
    return this.#keyed.run(key, work);
  }

  /** The ID of the message being handled, in its handling (undefined elsewhere). */
  get handledId(): number | undefined {
    return this.#handling.getStore()?.message.id;
  }

  /** Runs `work` as the handling of `ctx`'s message: posts to its thread go through `ctx`. */
  handling<T>(ctx: MessageContext, work: () => Promise<T>): Promise<T> {
    return this.#handling.run(ctx, work);
  }

  async initialize(_chat: ChatInstance): Promise<void> {}

  async handleWebhook(_request: Request): Promise<Response> {
    return new Response(
      "chat-sdk: the Zulip adapter takes no webhooks; topicbot's event queue delivers messages",
      { status: 404 },
    );
  }

  encodeThreadId(thread: ZulipThread): string {
    return encodeThreadId(thread);
  }
  decodeThreadId(threadId: string): ZulipThread {
    return decodeThreadId(threadId);
  }
  channelIdFromThreadId(threadId: string): string {
    return channelIdFromThreadId(threadId);
  }
  isDM(threadId: string): boolean {
    return decodeThreadId(threadId).type === "direct";
  }

  parseMessage(raw: Message): ChatMessage<Message> {
    const me = this.#me;
    const ctx = this.#handling.getStore();
    const isMe = me !== undefined && raw.sender_id === me.userId;
    const data = {
      id: String(raw.id),
      threadId: encodeThreadId(threadOf(conversationOf(raw))),
      text: raw.content,
      formatted: this.#converter.toAst(raw.content),
      raw,
      author: {
        userId: String(raw.sender_id),
        userName: raw.sender_email,
        fullName: raw.sender_full_name,
        email: raw.sender_email,
        isBot: isMe ? true : ("unknown" as const),
        isMe,
      },
      metadata: {
        dateSent: new Date(raw.timestamp * 1000),
        edited: raw.last_edit_timestamp !== undefined,
        ...(raw.last_edit_timestamp !== undefined && {
          editedAt: new Date(raw.last_edit_timestamp * 1000),
        }),
      },
      attachments: [],
    };
    const message = new ChatMessage<Message>(data);
    // The server's own mention flag decides, for the message being handled; Chat SDK's text
    // matching is left to decide otherwise.
    if (ctx?.message.id === raw.id && ctx.conversation.type === "channel")
      message.isMention = ctx.isMention;
    return message;
  }

  renderFormatted(content: FormattedContent): string {
    return this.#converter.fromAst(content);
  }

  #render(message: AdapterPostableMessage): string {
    return this.#converter.renderPostable(message);
  }

  #client(what: string): ApiClient {
    if (!this.#api)
      throw new Error(
        `chat-sdk: ${what} before the bot started (add chatSdkPlugin(...) to the bot's plugins)`,
      );
    return this.#api;
  }

  /** The context handling a message, when there is one. */
  #context(): MessageContext | undefined {
    return this.#handling.getStore();
  }

  async postMessage(
    threadId: string,
    message: AdapterPostableMessage,
  ): Promise<RawMessage<Message>> {
    const thread = decodeThreadId(threadId);
    const content = this.#render(message);
    const ctx = this.#context();
    let id: number;
    if (ctx && sameThread(threadOf(ctx.conversation), thread)) {
      id = (await ctx.reply(content)).id;
    } else if (ctx) {
      id = (
        await ctx.send(
          thread.type === "channel"
            ? { to: thread.streamId, topic: thread.topic, content }
            : { to: thread.userIds.map((userId) => ({ userId })), content },
        )
      ).id;
    } else {
      const api = this.#client("postMessage");
      const send = async () =>
        (
          await api.messages.send(
            thread.type === "channel"
              ? { type: "stream", to: thread.streamId, topic: thread.topic, content }
              : { type: "direct", to: thread.userIds, content },
          )
        ).id;
      id = this.#keyed ? await this.#keyed.post(thread, content, send) : await send();
    }
    return { id: String(id), threadId, raw: await this.#sent(id, thread, content) };
  }

  /** The message just sent, as a raw Zulip message (what the server would return for it). */
  async #sent(id: number, thread: ZulipThread, content: string): Promise<Message> {
    const me = this.#me;
    return {
      id,
      type: thread.type === "channel" ? "stream" : "private",
      ...(thread.type === "channel" && { stream_id: thread.streamId }),
      subject: thread.type === "channel" ? thread.topic : "",
      content,
      timestamp: Math.floor(Date.now() / 1000),
      sender_id: me?.userId ?? 0,
      sender_email: me?.email ?? "",
      sender_full_name: me?.fullName ?? this.userName,
      display_recipient:
        thread.type === "channel"
          ? ""
          : thread.userIds.map((uid) => ({ id: uid, email: "", full_name: "" })),
      reactions: [],
      submessages: [],
      topic_links: [],
    } as Message;
  }

  /**
   * A streamed answer to the thread of the message handled goes through `ctx.stream`: one
   * message edited as text arrives, recognised after a crash by its place, so a rerun edits it
   * rather than posting another. Elsewhere `null` hands it to Chat SDK's post + edit fallback.
   * Only text is shown: `markdown_text` chunks' text; task and plan chunks are dropped.
   */
  async stream(
    threadId: string,
    textStream: AsyncIterable<string | StreamChunk>,
    options: StreamOptions = {},
  ): Promise<RawMessage<Message> | null> {
    const thread = decodeThreadId(threadId);
    const ctx = this.#context();
    if (!ctx || !sameThread(threadOf(ctx.conversation), thread)) return null;
    async function* text(): AsyncGenerator<string> {
      for await (const chunk of textStream) {
        if (options.signal?.aborted) return;
        if (typeof chunk === "string") yield chunk;
        else if (chunk.type === "markdown_text") yield chunk.text;
      }
    }
    const result = await ctx.stream(text());
    const id = result.messageIds.at(-1);
    if (id === undefined) throw new Error("chat-sdk: the streamed answer posted no message");
    return { id: String(id), threadId, raw: await this.#sent(id, thread, result.text) };
  }

  async editMessage(
    threadId: string,
    id: string,
    message: AdapterPostableMessage,
  ): Promise<RawMessage<Message>> {
    const thread = decodeThreadId(threadId);
    const content = this.#render(message);
    const ctx = this.#context();
    if (ctx) await ctx.edit(messageId(id), { content });
    else await this.#client("editMessage").messages.update({ message_id: messageId(id), content });
    return { id, threadId, raw: await this.#sent(messageId(id), thread, content) };
  }

  /** Deletes a message (the server's rules: the bot's own within the realm's limit, any as an administrator). */
  async deleteMessage(_threadId: string, id: string): Promise<void> {
    await this.#client("deleteMessage").messages.remove({ message_id: messageId(id) });
  }

  /**
   * Adds the bot's reaction. One already there is what was asked: a message handled again after
   * a restart reacts again, and the server's REACTION_ALREADY_EXISTS is not an error then.
   */
  async addReaction(_threadId: string, id: string, emoji: EmojiValue | string): Promise<void> {
    const ctx = this.#context();
    const params = { message_id: messageId(id), emoji_name: emojiName(emoji) };
    await settled("REACTION_ALREADY_EXISTS", () =>
      ctx
        ? ctx.react(params.emoji_name, { message: params.message_id })
        : this.#client("addReaction").messages.addReaction(params),
    );
  }

  /** Removes the bot's reaction; one already gone (REACTION_DOES_NOT_EXIST) is what was asked. */
  async removeReaction(_threadId: string, id: string, emoji: EmojiValue | string): Promise<void> {
    const ctx = this.#context();
    const params = { message_id: messageId(id), emoji_name: emojiName(emoji) };
    await settled("REACTION_DOES_NOT_EXIST", () =>
      ctx
        ? ctx.unreact(params.emoji_name, { message: params.message_id })
        : this.#client("removeReaction").messages.removeReaction(params),
    );
  }

  async startTyping(threadId: string): Promise<void> {
    const thread = decodeThreadId(threadId);
    await this.#client("startTyping").typing.set(
      thread.type === "channel"
        ? { op: "start", type: "stream", stream_id: thread.streamId, topic: thread.topic }
        : { op: "start", type: "direct", to: thread.userIds },
    );
  }

  async openDM(userId: string): Promise<string> {
    const me = this.#me;
    const id = Number(userId);
    if (!Number.isSafeInteger(id) || id <= 0)
      throw new TypeError(`chat-sdk: openDM: "${userId}" is not a Zulip user ID`);
    return encodeThreadId({ type: "direct", userIds: me ? [id, me.userId] : [id] });
  }

  async fetchMessages(threadId: string, options: FetchOptions = {}): Promise<FetchResult<Message>> {
    const thread = decodeThreadId(threadId);
    const limit = options.limit ?? 50;
    const forward = options.direction === "forward";
    const cursor = options.cursor === undefined ? undefined : messageId(options.cursor);
    const narrow = narrowOf(thread);
    const { messages } = await this.#client("fetchMessages").messages.list({
      anchor: cursor ?? (forward ? "oldest" : "newest"),
      num_before: forward ? 0 : limit,
      num_after: forward ? limit : 0,
      include_anchor: cursor === undefined,
      narrow,
      apply_markdown: false,
    });
    const parsed = messages.map((m) => this.parseMessage(m));
    const full = messages.length >= limit;
    const edge = forward ? messages.at(-1) : messages[0];
    return {
      messages: parsed,
      ...(full && edge !== undefined && { nextCursor: String(edge.id) }),
    };
  }

  async fetchThread(threadId: string): Promise<ThreadInfo> {
    const thread = decodeThreadId(threadId);
    return {
      id: threadId,
      channelId: channelIdFromThreadId(threadId),
      isDM: thread.type === "direct",
      metadata:
        thread.type === "channel"
          ? { streamId: thread.streamId, topic: thread.topic }
          : { userIds: thread.userIds },
    };
  }

  /** Chat SDK subscribes a thread: its handling context follows it, so every message there arrives. */
  async onThreadSubscribe(threadId: string): Promise<void> {
    const ctx = this.#context();
    if (ctx && sameThread(threadOf(ctx.conversation), decodeThreadId(threadId)))
      await ctx.follow({ idleMinutes: this.#idleMinutes });
  }

  /** Scheduling, modals, ephemeral messages: Zulip has no such thing this adapter maps (see docs/chat-sdk.md). */
  async scheduleMessage(): Promise<never> {
    throw new NotImplementedError(
      "chat-sdk: scheduled messages are not mapped (use topicbot's ctx.schedule)",
      "scheduleMessage",
    );
  }
}
