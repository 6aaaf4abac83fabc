// Watching a sandbox in-process: messages, their edits, reactions, uploads and scheduled messages as they happen.
import type { StoredMessage } from "../sandbox/model.js";
import type { Realm } from "../sandbox/realm.js";

/** A message as the harness (and `bot dev`) shows it. */
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
  /** UNIX seconds on the sandbox's clock. */
  timestamp: number;
  /** The sending client's name, as the server recorded it. */
  client: string;
  /**
   * What the message showed before, oldest first, when it was edited (a streamed answer: its
   * first words, then each edit); `content` is what it shows now. Absent while never edited.
   */
  edits?: string[];
}

/** A message's content changed (an edit, a streamed answer's next words). */
export interface ObservedEdit {
  messageId: number;
  /** The content before and after the edit. */
  before: string;
  content: string;
}

/** An emoji reaction added or removed. */
export interface ObservedReaction {
  op: "add" | "remove";
  messageId: number;
  emoji: string;
  userId: number;
  userName: string;
}

/** A file someone uploaded. */
export interface ObservedUpload {
  /** The path the server answered with, `/user_uploads/...`. */
  url: string;
  filename: string;
  mimeType: string;
  ownerId: number;
  data: Buffer;
}

export interface ObserverEvents {
  message: ObservedMessage;
  reaction: ObservedReaction;
  upload: ObservedUpload;
  edit: ObservedEdit;
}

type Listener<K extends keyof ObserverEvents> = (event: ObserverEvents[K]) => void;

/** The harness's view of one message: who, where, what. */
export function observeMessage(realm: Realm, m: StoredMessage): ObservedMessage {
  const sender = realm.users.get(m.senderId);
  const base = {
    id: m.id,
    senderId: m.senderId,
    client: m.client,
    senderName: sender?.fullName ?? `user ${m.senderId}`,
    content: m.content,
    timestamp: m.timestamp,
  };
  return m.kind === "stream"
    ? { ...base, type: "channel", channel: realm.channels.get(m.streamId!)?.name, topic: m.topic }
    : { ...base, type: "direct", userIds: m.recipients };
}

/** Where a message is, as people write it: `#general > lunch`, or `DM Mia Member, Topic Bot`. */
export function placeOf(realm: Realm, m: ObservedMessage): string {
  if (m.type === "channel") return `#${m.channel} > ${m.topic}`;
  const names = (m.userIds ?? []).map((id) => realm.users.get(id)?.fullName ?? `user ${id}`);
  return `DM ${names.join(", ")}`;
}

/** Same conversation (channel topic case-insensitively, or the same DM group). */
export function sameConversation(a: ObservedMessage, b: ObservedMessage): boolean {
  if (a.type !== b.type) return false;
  if (a.type === "channel")
    return a.channel === b.channel && a.topic?.toLowerCase() === b.topic?.toLowerCase();
  return (a.userIds ?? []).join(",") === (b.userIds ?? []).join(",");
}

/**
 * Taps a sandbox's realm in-process through its listeners (`onMessage`, `onEvent`,
 * `uploads.onAdd`) until `close()`. Nothing goes over HTTP and no event queue is added,
 * so the bot's queues are exactly what the runtime registered.
 */
export class RealmObserver {
  readonly #realm: Realm;
  readonly #listeners = new Map<keyof ObserverEvents, Set<Listener<never>>>();
  readonly #restore: (() => void)[] = [];

  constructor(realm: Realm) {
    this.#realm = realm;
    this.#restore.push(realm.onMessage((m) => this.#emit("message", observeMessage(realm, m))));

    this.#restore.push(
      realm.onEvent((event) => {
        if (event.type === "reaction") this.#reaction(event);
        else if (event.type === "update_message") this.#edit(event);
      }),
      realm.uploads.onAdd((stored) =>
        this.#emit("upload", {
          url: stored.path,
          filename: stored.filename,
          mimeType: stored.mimeType,
          ownerId: stored.ownerId,
          data: stored.data,
        }),
      ),
    );
  }

  /** Calls `listener` for each event of `type`; returns the unsubscribe function. */
  on<K extends keyof ObserverEvents>(type: K, listener: Listener<K>): () => void {
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  #emit<K extends keyof ObserverEvents>(type: K, event: ObserverEvents[K]): void {
    for (const listener of this.#listeners.get(type) ?? []) (listener as Listener<K>)(event);
  }

  #edit(event: Record<string, unknown>): void {
    const { message_id: id, orig_content: before, content } = event;
    if (typeof id !== "number" || typeof before !== "string" || typeof content !== "string") return;
    this.#emit("edit", { messageId: id, before, content });
  }

  #reaction(event: Record<string, unknown>): void {
    const userId = event.user_id as number;
    this.#emit("reaction", {
      op: event.op as "add" | "remove",
      messageId: event.message_id as number,
      emoji: event.emoji_name as string,
      userId,
      userName: this.#realm.users.get(userId)?.fullName ?? `user ${userId}`,
    });
  }

  /** Stops observing and gives the realm its own methods back. */
  close(): void {
    for (const restore of this.#restore.splice(0).reverse()) restore();
  }
}
