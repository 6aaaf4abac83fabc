// The sandbox's realm state, the bottom of its model: users, channels, subscriptions, messages, and the events they send.
import { randomBytes } from "node:crypto";
import type { Clock } from "./clock.js";
import { seedRealmEmoji, type RealmEmoji } from "./emoji.js";
import { findMentions, renderMarkdown, type MentionLookup } from "./markdown.js";
import { MessageIndex } from "./messageIndex.js";
import { flagSet, NO_FLAGS } from "./flagSets.js";
import { SubscriptionPropertyStore } from "./subscriptionProperties.js";
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

/** What the realm state needs of the event queues: each user's queues, and a new message delivered. */
export interface RealmQueues {
  all(): Iterable<{
    userId: number;
    push(event: Record<string, unknown> & { type: string }): void;
  }>;
  deliverMessage(
    realm: RealmState,
    message: StoredMessage,
    localEcho?: { queueId: string; localId: string },
  ): void;
}

/** What the realm state needs of the uploads: a message claims the files it links. */
export interface RealmUploads {
  claim(realm: RealmState, message: StoredMessage): void;
}

/**
 * The realm's state and the rules every part of the sandbox reads it by. The queues, uploads and
 * scheduler build on it; `Realm` (realm.ts) puts them together.
 */
export class RealmState {
  readonly settings: RealmSettings;
  readonly clock: Clock;
  /** By ID, and indexed by email and full name (see `RealmUsers`). */
  readonly users = new RealmUsers();
  readonly channels = new Map<number, Channel>();
  /** Every stored message, ascending IDs. Read through `index` rather than scanning it. */
  readonly messages: StoredMessage[] = [];
  /** The messages by channel, topic, DM conversation and receiving user. */
  readonly index = new MessageIndex();
  readonly queues: RealmQueues;
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
  readonly uploads: RealmUploads;

  constructor(settings: RealmSettings, clock: Clock, queues: RealmQueues, uploads: RealmUploads) {
    this.settings = settings;
    this.clock = clock;
    this.queues = queues;
    this.uploads = uploads;
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
    const senderId = init.sender.userId;
    const { extraFlags } = init;
    // Every recipient (unique, in order), then the sender if not one of them.
    const flagUser = (userId: number): void => {
      const read = userId === senderId && readBySender;
      // Most recipients have no flag at all: no list to build for them.
      if (!read && !mentioned.has(userId) && extraFlags === undefined)
        return void message.flags.set(userId, NO_FLAGS);
      const flags: string[] = [];
      if (read) flags.push("read");
      if (mentioned.has(userId)) flags.push("mentioned");
      if (extraFlags !== undefined) for (const flag of extraFlags(userId)) flags.push(flag);
      message.flags.set(userId, flags.length === 0 ? NO_FLAGS : flagSet(flags));
    };
    for (const userId of recipients) flagUser(userId);
    if (!message.flags.has(senderId)) flagUser(senderId);
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
}
