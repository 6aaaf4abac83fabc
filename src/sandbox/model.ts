// The sandbox's model: users, channels and messages as the realm stores them, and the realm's settings.
import type { Role } from "../api/common.js";
import type { UserSettings } from "./userSettings.js";

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
  /** `automatically_follow_topics_policy`: 1 participates, 2 sends, 3 starts (default), 4 never. */
  followTopicsPolicy?: number;
  /** `automatically_unmute_topics_in_muted_streams_policy`; same values, default 2. */
  unmuteTopicsPolicy?: number;
  /** An internal bot (Notification Bot) that is not part of the seeded accounts. */
  isSystemBot?: boolean;
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
  /**
   * Whether a subscriber reads the channel's whole history (`history_public_to_subscribers`);
   * when false, only the messages they received while subscribed. Always true for public channels.
   */
  historyPublicToSubscribers: boolean;
  subscribers: Set<number>;
  /** UNIX seconds. */
  dateCreated?: number;
}

export interface StoredReaction {
  emojiName: string;
  emojiCode: string;
  reactionType: string;
  userId: number;
}

/** One edit of a message: who, when, and what it was before (the state after is the next one's "before"). */
export interface StoredEdit {
  userId: number;
  timestamp: number;
  prevContent?: string;
  prevRenderedContent?: string;
  prevTopic?: string;
  prevStreamId?: number;
  /** Set with prevTopic / prevStreamId: the values after the edit. */
  topic?: string;
  streamId?: number;
}

/** A submessage (a widget and its later events), as the message's `submessages` lists it. */
export interface StoredSubmessage {
  id: number;
  senderId: number;
  msgType: string;
  /** JSON text. */
  content: string;
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
  /** Personal flags per user ID; a user with an entry "has" the message (UserMessage row). */
  flags: Map<number, ReadonlySet<string>>;
  reactions: StoredReaction[];
  /** Widgets (`widget_content`, `/poll`, `/todo`), oldest first. */
  submessages: StoredSubmessage[];
  /** Edits, oldest first. */
  edits: StoredEdit[];
  lastEditTimestamp?: number;
  lastMovedTimestamp?: number;
}

/** A system group of roles, as the realm's group settings name them. */
export type RoleGroup =
  | "role:everyone"
  | "role:members"
  | "role:moderators"
  | "role:administrators"
  | "role:owners"
  | "role:nobody";

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
  /** Name of the channel that receives message reports; null: none configured (reports fail). */
  moderationRequestChannel: string | null;
  /** Channels with more subscribers (topics with more participants) refuse wildcard mentions from users below `wildcardMentionMinRole`. */
  wildcardMentionThreshold: number;
  /** Highest role number (100 owner … 600 guest) allowed to mention many users. Default 300. */
  wildcardMentionMinRole: number;
  /** Whether edit history is shown (`edit_history`, the history endpoint). */
  allowEditHistory: boolean;
  /** `allow_message_editing`: false refuses every content edit. */
  allowMessageEditing: boolean;
  /** Seconds after sending a message's content may be edited (the server adds 20 s of grace); null: no limit. */
  messageContentEditLimitSeconds: number | null;
  /** Seconds after sending a user may delete their own message (administrators: no limit); null: none. */
  messageContentDeleteLimitSeconds: number | null;
  /** Who may delete their own messages (`can_delete_own_message_group`, a role group). Default everyone. */
  canDeleteOwnMessageGroup?: RoleGroup;
  /** Who may delete any message (`can_delete_any_message_group`). Default administrators. */
  canDeleteAnyMessageGroup?: RoleGroup;
  /** Seconds after sending a message may move to another topic (moderators: no limit); null: none. */
  moveMessagesWithinStreamLimitSeconds: number | null;
  /** Seconds after sending a message may move to another channel (moderators: no limit); null: none. */
  moveMessagesBetweenStreamsLimitSeconds: number | null;
  /** Public access: GET /users answers requests without credentials. */
  enableSpectatorAccess: boolean;
  /**
   * Who sees every user (`can_access_all_users_group`): `role:everyone` (the server's default) or
   * `role:members`, where a guest sees only users they share a channel or a direct message with,
   * bots, and "Unknown user" for the rest (see `userAccess.ts`).
   */
  canAccessAllUsersGroup: "role:everyone" | "role:members";
  /** How the simulated push bouncer answers: `ok`, or the error code it makes the server give. */
  pushBouncer:
    | "ok"
    | "ADMIN_ACTION_REQUIRED"
    | "FAILED_TO_CONNECT_BOUNCER"
    | "INTERNAL_SERVER_ERROR_ON_BOUNCER";
}
