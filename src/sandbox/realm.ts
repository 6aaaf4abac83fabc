// The sandbox's realm state: users, channels, subscriptions and messages, and how messages reach queues.
import { randomBytes } from "node:crypto";
import type { Clock } from "./clock.js";
import { apiEmail } from "./emailVisibility.js";
import { seedRealmEmoji, type RealmEmoji } from "./emoji.js";
import { findMentions, renderMarkdown, type MentionLookup } from "./markdown.js";
import { MessageIndex } from "./messageIndex.js";
import { flagSet, NO_FLAGS } from "./flagSets.js";
import type { QueueRegistry } from "./queues.js";
import { Scheduler } from "./scheduled.js";
import { SubscriptionPropertyStore } from "./subscriptionProperties.js";
import { UploadStore } from "./uploads.js";
import { avatarField } from "./avatar.js";
import { widgetFromContent, type WidgetContent } from "./widgets.js";
import { DEFAULT_USER_SETTINGS, type UserSettings } from "./userSettings.js";
import { RealmUsers } from "./realmUsers.js";
import type { Channel, RealmSettings, SandboxUser, StoredMessage } from "./model.js";

export const DEFAULT_SETTINGS: RealmSettings = {
  host: "sandbox.test",
  name: "Sandbox",
  emptyTopicDisplayName: "general chat",
  maxMessageLength: 10_000,
  maxTopicLength: 60,
  maxFileUploadSizeMib: 25,
  featureLevel: 427,
  zulipVersion: "11.0-topicbot-sandbox",
  moderationRequestChannel: null,
  wildcardMentionThreshold: 15,
  wildcardMentionMinRole: 300,
  allowEditHistory: true,
  allowMessageEditing: true,
  messageContentEditLimitSeconds: 600,
  messageContentDeleteLimitSeconds: 600,
  moveMessagesWithinStreamLimitSeconds: 7 * 86_400,
  moveMessagesBetweenStreamsLimitSeconds: 7 * 86_400,
  enableSpectatorAccess: false,
  canAccessAllUsersGroup: "role:everyone",
  pushBouncer: "ok",
};

/** A fresh 32-character API key or password. */
export const newSecret = (): string => randomBytes(16).toString("hex");

/** How a message is shown: rendered or raw, the empty topic's name, and `client_gravatar` (default true). */
export interface MessageViewOptions {
  applyMarkdown: boolean;
  allowEmptyTopicName: boolean;
  clientGravatar?: boolean;
}

export class Realm {
  readonly settings: RealmSettings;
  readonly clock: Clock;
  /** By ID, and indexed by email and full name (see `RealmUsers`). */
  readonly users = new RealmUsers();
  readonly channels = new Map<number, Channel>();
  /** Every stored message, ascending IDs. Read through `index` rather than scanning it. */
  readonly messages: StoredMessage[] = [];
  /** The messages by channel, topic, DM conversation and receiving user. */
  readonly index = new MessageIndex();
  readonly queues: QueueRegistry;
  /** A deactivated realm refuses every request with `REALM_DEACTIVATED`. */
  deactivated = false;
  /** The settings users joining from now on start with (PATCH /realm/user_settings_defaults). */
  readonly userSettingsDefaults: UserSettings = { ...DEFAULT_USER_SETTINGS };
  #nextUserId = 1;
  /** The Notification Bot's ID once made (`systemBot`). */
  #systemBotId: number | undefined;
  #nextChannelId = 1;
  #nextMessageId = 1;
  #nextSubmessageId = 1;
  /** Recipient IDs of DM groups, keyed by the sorted participant list. */
  readonly #dmRecipientIds = new Map<string, number>();
  #nextRecipientId = 1;
  readonly #messageListeners = new Set<(message: StoredMessage) => void>();
  readonly #eventListeners = new Set<
    (event: Record<string, unknown> & { type: string }, userIds: ReadonlySet<number>) => void
  >();
  /** Personal subscription settings (colour, muting, notifications), the only store of them. */
  readonly subscriptionProperties = new SubscriptionPropertyStore();
  /** Topic visibility policies (1 muted, 2 unmuted, 3 followed), keyed `userId:streamId:topic` (topic lowercased). */
  readonly userTopics = new Map<string, number>();
  /** Custom (realm) emoji by ID; reactions and statuses resolve emoji against them. */
  readonly realmEmoji: Map<string, RealmEmoji> = seedRealmEmoji();
  readonly uploads = new UploadStore();
  readonly scheduler: Scheduler;

  constructor(settings: RealmSettings, clock: Clock, queues: QueueRegistry) {
    this.settings = settings;
    this.clock = clock;
    this.queues = queues;
    this.scheduler = new Scheduler(this, clock);
  }

  /** Seconds since the epoch on the realm's clock. */
  nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  addUser(
    init: Omit<
      SandboxUser,
      | "userId"
      | "apiKey"
      | "dateJoined"
      | "isActive"
      | "timezone"
      | "settings"
      | "permissions"
      | "avatarUploaded"
      | "avatarVersion"
      | "profileData"
    > &
      Partial<SandboxUser>,
  ): SandboxUser {
    const user: SandboxUser = {
      apiKey: newSecret(),
      isActive: true,
      timezone: "UTC",
      dateJoined: this.clock.now(),
      settings: { ...this.userSettingsDefaults },
      permissions: new Set(),
      avatarUploaded: false,
      avatarVersion: 1,
      profileData: new Map(),
      ...init,
      userId: this.#nextUserId++,
    };
    this.users.set(user.userId, user);
    return user;
  }

  /**
   * Adds a channel. A private channel's history is protected unless `historyPublicToSubscribers`
   * says otherwise (the server's default); a public channel's history is always public.
   */
  addChannel(
    name: string,
    description = "",
    inviteOnly = false,
    historyPublicToSubscribers = !inviteOnly,
  ): Channel {
    const channel: Channel = {
      streamId: this.#nextChannelId++,
      name,
      description,
      inviteOnly,
      historyPublicToSubscribers: !inviteOnly || historyPublicToSubscribers,
      subscribers: new Set(),
      dateCreated: this.nowSeconds(),
    };
    // Channel recipient IDs share the recipient counter with DM groups.
    this.#dmRecipientIds.set(`channel:${channel.streamId}`, this.#nextRecipientId++);
    this.channels.set(channel.streamId, channel);
    return channel;
  }

  /** Subscribes `userId` (idempotent); returns false when already subscribed. */
  subscribe(channel: Channel, userId: number): boolean {
    if (channel.subscribers.has(userId)) return false;
    channel.subscribers.add(userId);
    this.subscriptionProperties.of(userId, channel.streamId);
    return true;
  }

  /** Topic visibility policy of a user (0 none, 1 muted, 2 unmuted, 3 followed). */
  topicPolicy(userId: number, streamId: number, topic: string): number {
    return this.userTopics.get(`${userId}:${streamId}:${topic.toLowerCase()}`) ?? 0;
  }

  setTopicPolicy(userId: number, streamId: number, topic: string, policy: number): void {
    this.userTopics.set(`${userId}:${streamId}:${topic.toLowerCase()}`, policy);
  }

  /** Delivers an event to every queue of the given users. */
  pushEvent(userIds: Iterable<number>, event: Record<string, unknown> & { type: string }): void {
    const wanted = new Set(userIds);
    for (const queue of this.queues.all()) if (wanted.has(queue.userId)) queue.push(event);
    this.announce(event, wanted);
  }

  /**
   * Tells `onEvent` listeners of an event delivered to `userIds` queue by queue (an edit, whose
   * copies differ by viewer, is pushed that way rather than through `pushEvent`).
   */
  announce(event: Record<string, unknown> & { type: string }, userIds: ReadonlySet<number>): void {
    for (const listener of this.#eventListeners) listener(event, userIds);
  }

  /** Calls `listener` with every event pushed to users' queues; returns the unsubscribe function. */
  onEvent(
    listener: (
      event: Record<string, unknown> & { type: string },
      userIds: ReadonlySet<number>,
    ) => void,
  ): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /** The internal Notification Bot, created on first use; it posts reports and other notices. */
  systemBot(): SandboxUser {
    const known = this.#systemBotId === undefined ? undefined : this.users.get(this.#systemBotId);
    if (known?.isSystemBot) return known;
    for (const user of this.users.values())
      if (user.isSystemBot) {
        this.#systemBotId = user.userId;
        return user;
      }
    const bot = this.addUser({
      email: `notification-bot@${this.settings.host}`,
      fullName: "Notification Bot",
      password: null,
      role: 400,
      isBot: true,
      botType: 1,
      botOwnerId: null,
      isSystemBot: true,
    });
    this.#systemBotId = bot.userId;
    return bot;
  }

  /** The next submessage ID (submessages share one sequence across messages). */
  newSubmessageId(): number {
    return this.#nextSubmessageId++;
  }

  /** Takes an ID from the message sequence without posting (scheduled messages: never equal to the sent ID). */
  reserveMessageId(): number {
    return this.#nextMessageId++;
  }

  message(id: number): StoredMessage | undefined {
    // IDs increase (with gaps where IDs were reserved): binary search.
    let lo = 0;
    let hi = this.messages.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const found = this.messages[mid]!;
      if (found.id === id) return found;
      if (found.id < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** The user whose (real) email is `email`, case-insensitively: an index lookup, not a scan. */
  userByEmail(email: string): SandboxUser | undefined {
    return this.users.withEmail(email)[0];
  }

  channelByName(name: string): Channel | undefined {
    const wanted = name.toLowerCase();
    for (const channel of this.channels.values())
      if (channel.name.toLowerCase() === wanted) return channel;
    return undefined;
  }

  /**
   * The active users a mention can name, found through the user indexes (a render looks up the
   * few names it meets instead of listing the whole organization).
   */
  readonly mentionTargets: MentionLookup = {
    byId: (userId) => {
      const user = this.users.get(userId);
      return user?.isActive ? user : undefined;
    },
    byName: (fullName) => this.users.named(fullName).find((u) => u.isActive),
  };

  /** The recipient ID of a DM conversation among these users (sender included), if it exists. */
  dmRecipientId(participants: readonly number[]): number | undefined {
    return this.#dmRecipientIds.get(`dm:${[...participants].sort((a, b) => a - b).join(",")}`);
  }

  #recipientId(key: string): number {
    let id = this.#dmRecipientIds.get(key);
    if (id === undefined) {
      id = this.#nextRecipientId++;
      this.#dmRecipientIds.set(key, id);
    }
    return id;
  }

  /** Stores a message and delivers a `message` event to every queue that should see it. */
  postMessage(init: {
    sender: SandboxUser;
    kind: "stream" | "private";
    channel?: Channel;
    topic?: string;
    recipients?: number[];
    content: string;
    client?: string;
    readBySender?: boolean;
    localEcho?: { queueId: string; localId: string };
    /** A checked `widget_content`; without it, content starting `/poll` or `/todo` makes one. */
    widget?: WidgetContent;
    /** Further flags per recipient, such as wildcard mentions. */
    extraFlags?: (userId: number) => Iterable<string>;
    /** Runs after the message is stored and before events go out (visibility policies). */
    beforeDelivery?: (message: StoredMessage) => void;
  }): StoredMessage {
    const targets = this.mentionTargets;
    const recipients =
      init.kind === "stream"
        ? [...init.channel!.subscribers]
        : [...new Set([init.sender.userId, ...(init.recipients ?? [])])].sort((a, b) => a - b);
    const recipientId =
      init.kind === "stream"
        ? this.#recipientId(`channel:${init.channel!.streamId}`)
        : this.#recipientId(`dm:${recipients.join(",")}`);
    const mentioned = findMentions(init.content, targets);
    const message: StoredMessage = {
      id: this.#nextMessageId++,
      kind: init.kind,
      streamId: init.channel?.streamId,
      topic: init.kind === "stream" ? (init.topic ?? "") : "",
      content: init.content,
      renderedContent: renderMarkdown(init.content, targets),
      senderId: init.sender.userId,
      recipients,
      recipientId,
      timestamp: this.nowSeconds(),
      client: init.client ?? "topicbot",
      flags: new Map(),
      reactions: [],
      submessages: [],
      edits: [],
    };
    const widget = init.widget ?? widgetFromContent(init.content);
    if (widget)
      message.submessages.push({
        id: this.newSubmessageId(),
        senderId: init.sender.userId,
        msgType: "widget",
        content: JSON.stringify(widget),
      });
    const readBySender = init.readBySender ?? true;
    const everyone = new Set([...recipients, init.sender.userId]);
    for (const userId of everyone) {
      const flags: string[] = [];
      if (userId === init.sender.userId && readBySender) flags.push("read");
      if (mentioned.has(userId)) flags.push("mentioned");
      for (const flag of init.extraFlags?.(userId) ?? []) flags.push(flag);
      message.flags.set(userId, flags.length === 0 ? NO_FLAGS : flagSet(flags));
    }
    this.messages.push(message);
    this.index.add(message);
    this.uploads.claim(this, message);
    init.beforeDelivery?.(message);
    this.queues.deliverMessage(this, message, init.localEcho);
    for (const listener of this.#messageListeners) listener(message);
    return message;
  }

  /** Calls `listener` with every new message; returns the unsubscribe function. */
  onMessage(listener: (message: StoredMessage) => void): () => void {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  }

  /**
   * Whether `user` may see `message`, by the server's rules: a DM its participants; a public
   * channel's message every member, and subscribers (guests only these); in a channel with
   * protected history (`historyPublicToSubscribers` false), only a subscriber who received the
   * message (has a row for it: was subscribed when it was sent).
   */
  canSee(user: SandboxUser, message: StoredMessage): boolean {
    if (message.kind === "private") return message.recipients.includes(user.userId);
    const channel = this.channels.get(message.streamId!);
    if (!channel) return false;
    if (!channel.subscribers.has(user.userId)) return !channel.inviteOnly && user.role !== 600;
    return channel.historyPublicToSubscribers || message.flags.has(user.userId);
  }

  /** The viewer's flags; `historical` (plus `read`) when they never received the message. */
  flagsFor(message: StoredMessage, viewer: SandboxUser): string[] {
    const own = message.flags.get(viewer.userId);
    if (!own) return ["read", "historical"];
    const flags = [...own];
    if (own.has("stream_wildcard_mentioned") || own.has("topic_wildcard_mentioned"))
      flags.push("wildcard_mentioned");
    return flags;
  }

  /** The topic as a client sees it: the empty topic shown by name unless it accepts "". */
  displayTopic(topic: string, allowEmptyTopicName: boolean): string {
    return topic === "" && !allowEmptyTopicName ? this.settings.emptyTopicDisplayName : topic;
  }

  /** Adds the edit fields a message has (`last_edit_timestamp`, `last_moved_timestamp`, `edit_history`) to `fields`. */
  #addEditFields(
    fields: Record<string, unknown>,
    message: StoredMessage,
    allowEmpty: boolean,
  ): void {
    if (message.lastEditTimestamp !== undefined)
      fields.last_edit_timestamp = message.lastEditTimestamp;
    if (message.lastMovedTimestamp !== undefined)
      fields.last_moved_timestamp = message.lastMovedTimestamp;
    if (message.edits.length > 0 && this.settings.allowEditHistory) {
      fields.edit_history = [...message.edits].reverse().map((e) => {
        const entry: Record<string, unknown> = { user_id: e.userId, timestamp: e.timestamp };
        if (e.prevContent !== undefined) {
          entry.prev_content = e.prevContent;
          entry.prev_rendered_content = e.prevRenderedContent;
        }
        if (e.prevTopic !== undefined) {
          entry.prev_topic = this.displayTopic(e.prevTopic, allowEmpty);
          entry.topic = this.displayTopic(e.topic!, allowEmpty);
        }
        if (e.prevStreamId !== undefined) {
          entry.prev_stream = e.prevStreamId;
          entry.stream = e.streamId;
        }
        return entry;
      });
    }
  }

  /** The message object as `viewer` receives it. */
  messageView(
    message: StoredMessage,
    viewer: SandboxUser,
    options: MessageViewOptions,
  ): Record<string, unknown> {
    return this.#view(message, viewer, options, this.flagsFor(message, viewer));
  }

  /** A `message` event's parts for `viewer`: the message object (without `flags`) and the flags beside it. */
  messageEvent(
    message: StoredMessage,
    viewer: SandboxUser,
    options: MessageViewOptions,
  ): { message: Record<string, unknown>; flags: string[] } {
    return {
      message: this.#view(message, viewer, options, undefined),
      flags: this.flagsFor(message, viewer),
    };
  }

  /**
   * The message object, with `flags` when given. Built key by key in the API's order, not with
   * spreads or `delete`, which make objects slow to build and to serialize: every message of a
   * GET /messages answer and of every event goes through here.
   */
  #view(
    message: StoredMessage,
    viewer: SandboxUser,
    options: MessageViewOptions,
    flags: string[] | undefined,
  ): Record<string, unknown> {
    const sender = this.users.get(message.senderId)!;
    const view: Record<string, unknown> = {
      id: message.id,
      sender_id: sender.userId,
      // The API email: the placeholder for every viewer when the real one is not public.
      sender_email: apiEmail(this, sender),
      sender_full_name: sender.fullName,
      sender_realm_str: "sandbox",
      avatar_url: avatarField(this, viewer, sender, options.clientGravatar ?? true),
      client: message.client,
      content: options.applyMarkdown ? message.renderedContent : message.content,
      content_type: options.applyMarkdown ? "text/html" : "text/x-markdown",
      timestamp: message.timestamp,
      recipient_id: message.recipientId,
      is_me_message: message.content.startsWith("/me "),
      reactions: message.reactions.map((r) => ({
        emoji_name: r.emojiName,
        emoji_code: r.emojiCode,
        reaction_type: r.reactionType,
        user_id: r.userId,
      })),
      submessages: message.submessages.map((sub) => ({
        id: sub.id,
        message_id: message.id,
        sender_id: sub.senderId,
        msg_type: sub.msgType,
        content: sub.content,
      })),
      topic_links: [],
    };
    if (flags !== undefined) view.flags = flags;
    this.#addEditFields(view, message, options.allowEmptyTopicName);
    if (message.kind === "stream") {
      const channel = this.channels.get(message.streamId!)!;
      view.type = "stream";
      view.stream_id = channel.streamId;
      view.display_recipient = channel.name;
      view.subject = this.displayTopic(message.topic, options.allowEmptyTopicName);
      return view;
    }
    view.type = "private";
    view.display_recipient = message.recipients.map((id) => {
      const u = this.users.get(id)!;
      return {
        id: u.userId,
        email: apiEmail(this, u),
        full_name: u.fullName,
        is_mirror_dummy: false,
      };
    });
    view.subject = "";
    return view;
  }
}
