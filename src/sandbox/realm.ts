// The sandbox's realm state: users, channels, subscriptions and messages, and how messages reach queues.
import { randomBytes } from "node:crypto";
import type { Role } from "../api/common.js";
import type { Clock } from "./clock.js";
import { findMentions, renderMarkdown } from "./markdown.js";
import type { QueueRegistry } from "./queues.js";
import { DEFAULT_USER_SETTINGS, type UserSettings } from "./userSettings.js";

export interface SandboxUser {
  userId: number;
  email: string;
  fullName: string;
  apiKey: string;
  /** Humans have one; bots log in with their key only. */
  password: string | null;
  role: Role;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  isActive: boolean;
  timezone: string;
  dateJoined: number;
  /** Personal settings; a new user starts from the realm's user settings defaults. */
  settings: UserSettings;
  /** Special permissions such as `can_create_users` and `can_change_user_emails`. */
  permissions: Set<string>;
  /** Whether the user uploaded an avatar; otherwise the external-provider avatar applies. */
  avatarUploaded: boolean;
  avatarVersion: number;
  /** Custom profile field values by field ID. */
  profileData: Map<number, string>;
}

export interface Channel {
  streamId: number;
  name: string;
  description: string;
  inviteOnly: boolean;
  subscribers: Set<number>;
}

export interface StoredMessage {
  id: number;
  kind: "stream" | "private";
  streamId?: number;
  topic: string;
  content: string;
  renderedContent: string;
  senderId: number;
  /** DM participants (sender included); for channel messages, the subscribers when it was sent. */
  recipients: number[];
  recipientId: number;
  timestamp: number;
  client: string;
  /** Personal flags per user ID. */
  flags: Map<number, Set<string>>;
}

export interface RealmSettings {
  /** Host part of the realm's URL, used in placeholder emails. */
  host: string;
  name: string;
  /** `realm_empty_topic_display_name`. */
  emptyTopicDisplayName: string;
  maxMessageLength: number;
  maxTopicLength: number;
  maxFileUploadSizeMib: number;
  featureLevel: number;
  zulipVersion: string;
  /** Public access: GET /users answers requests without credentials. */
  enableSpectatorAccess: boolean;
  /** How the simulated push bouncer answers: `ok`, or the error code it makes the server give. */
  pushBouncer:
    | "ok"
    | "ADMIN_ACTION_REQUIRED"
    | "FAILED_TO_CONNECT_BOUNCER"
    | "INTERNAL_SERVER_ERROR_ON_BOUNCER";
}

export const DEFAULT_SETTINGS: RealmSettings = {
  host: "sandbox.test",
  name: "Sandbox",
  emptyTopicDisplayName: "general chat",
  maxMessageLength: 10_000,
  maxTopicLength: 60,
  maxFileUploadSizeMib: 25,
  featureLevel: 427,
  zulipVersion: "11.0-topicbot-sandbox",
  enableSpectatorAccess: false,
  pushBouncer: "ok",
};

/** A fresh 32-character API key or password. */
export const newSecret = (): string => randomBytes(16).toString("hex");

export class Realm {
  readonly settings: RealmSettings;
  readonly clock: Clock;
  readonly users = new Map<number, SandboxUser>();
  readonly channels = new Map<number, Channel>();
  readonly messages: StoredMessage[] = [];
  readonly queues: QueueRegistry;
  /** A deactivated realm refuses every request with `REALM_DEACTIVATED`. */
  deactivated = false;
  /** The settings users joining from now on start with (PATCH /realm/user_settings_defaults). */
  readonly userSettingsDefaults: UserSettings = { ...DEFAULT_USER_SETTINGS };
  #nextUserId = 1;
  #nextChannelId = 1;
  #nextMessageId = 1;
  /** Recipient IDs of DM groups, keyed by the sorted participant list. */
  readonly #dmRecipientIds = new Map<string, number>();
  #nextRecipientId = 1;
  readonly #messageListeners = new Set<(message: StoredMessage) => void>();

  constructor(settings: RealmSettings, clock: Clock, queues: QueueRegistry) {
    this.settings = settings;
    this.clock = clock;
    this.queues = queues;
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

  addChannel(name: string, description = "", inviteOnly = false): Channel {
    const channel: Channel = {
      streamId: this.#nextChannelId++,
      name,
      description,
      inviteOnly,
      subscribers: new Set(),
    };
    // Channel recipient IDs share the recipient counter with DM groups.
    this.#dmRecipientIds.set(`channel:${channel.streamId}`, this.#nextRecipientId++);
    this.channels.set(channel.streamId, channel);
    return channel;
  }

  userByEmail(email: string): SandboxUser | undefined {
    const wanted = email.toLowerCase();
    for (const user of this.users.values()) if (user.email.toLowerCase() === wanted) return user;
    return undefined;
  }

  channelByName(name: string): Channel | undefined {
    const wanted = name.toLowerCase();
    for (const channel of this.channels.values())
      if (channel.name.toLowerCase() === wanted) return channel;
    return undefined;
  }

  mentionTargets(): { userId: number; fullName: string }[] {
    return [...this.users.values()]
      .filter((u) => u.isActive)
      .map((u) => ({ userId: u.userId, fullName: u.fullName }));
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
  }): StoredMessage {
    const targets = this.mentionTargets();
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
    };
    const readBySender = init.readBySender ?? true;
    const everyone = new Set([...recipients, init.sender.userId]);
    for (const userId of everyone) {
      const flags = new Set<string>();
      if (userId === init.sender.userId && readBySender) flags.add("read");
      if (mentioned.has(userId)) flags.add("mentioned");
      message.flags.set(userId, flags);
    }
    this.messages.push(message);
    this.queues.deliverMessage(this, message, init.localEcho);
    for (const listener of this.#messageListeners) listener(message);
    return message;
  }

  /** Calls `listener` with every new message; returns the unsubscribe function. */
  onMessage(listener: (message: StoredMessage) => void): () => void {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  }

  /** Whether `user` may see `message`. */
  canSee(user: SandboxUser, message: StoredMessage): boolean {
    if (message.kind === "private") return message.recipients.includes(user.userId);
    const channel = this.channels.get(message.streamId!);
    if (!channel) return false;
    return channel.subscribers.has(user.userId) || (!channel.inviteOnly && user.role !== 600);
  }

  /** The message object as `viewer` receives it. */
  messageView(
    message: StoredMessage,
    viewer: SandboxUser,
    options: { applyMarkdown: boolean; allowEmptyTopicName: boolean },
  ): Record<string, unknown> {
    const sender = this.users.get(message.senderId)!;
    const base = {
      id: message.id,
      sender_id: sender.userId,
      sender_email: sender.email,
      sender_full_name: sender.fullName,
      sender_realm_str: "sandbox",
      avatar_url: null,
      client: message.client,
      content: options.applyMarkdown ? message.renderedContent : message.content,
      content_type: options.applyMarkdown ? "text/html" : "text/x-markdown",
      timestamp: message.timestamp,
      recipient_id: message.recipientId,
      is_me_message: message.content.startsWith("/me "),
      reactions: [],
      submessages: [],
      topic_links: [],
      flags: [...(message.flags.get(viewer.userId) ?? [])],
    };
    if (message.kind === "stream") {
      const channel = this.channels.get(message.streamId!)!;
      const topic =
        message.topic === "" && !options.allowEmptyTopicName
          ? this.settings.emptyTopicDisplayName
          : message.topic;
      return {
        ...base,
        type: "stream",
        stream_id: channel.streamId,
        display_recipient: channel.name,
        subject: topic,
      };
    }
    const display = message.recipients.map((id) => {
      const u = this.users.get(id)!;
      return { id: u.userId, email: u.email, full_name: u.fullName, is_mirror_dummy: false };
    });
    return { ...base, type: "private", display_recipient: display, subject: "" };
  }
}
