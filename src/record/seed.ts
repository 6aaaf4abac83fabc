// Redrive: a cassette's people, channels and history put into a sandbox realm, and its people's messages as a script.
import type { Realm } from "../sandbox/realm.js";
import type { Channel, SandboxUser } from "../sandbox/model.js";
import type { Role } from "../api/common.js";
import { eventsOf, type Cassette } from "./cassette.js";

/** One message a person sent while recording, to send again in the same order. */
export interface ScriptedMessage {
  /** Its ID when recorded. */
  recordedId: number;
  senderEmail: string;
  kind: "stream" | "private";
  channel?: string;
  topic?: string;
  /** Direct messages: every participant's email (the sender's included). */
  recipientEmails?: string[];
  content: string;
}

/** What seeding made of the cassette. */
export interface SeededRealm {
  /** Recorded user IDs to the realm's. */
  userIds: Map<number, number>;
  /** Recorded channel IDs to the realm's. */
  streamIds: Map<number, number>;
  /** Recorded message IDs to the realm's (the history; scripted messages as they are sent). */
  messageIds: Map<number, number>;
  /** The people's messages in recorded order (the bot's own answers are not in it). */
  script: ScriptedMessage[];
  /** What was recorded but cannot be redriven (event types other than messages), counted. */
  skipped: Map<string, number>;
}

interface RecordedUser {
  user_id: number;
  email: string;
  full_name: string;
  role?: number;
  is_bot?: boolean;
}

interface RecordedMessage {
  id: number;
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  type: "stream" | "private";
  stream_id?: number;
  display_recipient: string | { id: number; email: string; full_name: string }[];
  subject?: string;
  topic?: string;
  content: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The bot's own profile as recorded (GET /users/me), if the cassette holds it. */
export function recordedBot(
  cassette: Cassette,
): { userId: number; email: string; fullName: string } | undefined {
  for (const x of cassette.exchanges)
    if (x.method === "GET" && x.path === "/users/me" && x.status === 200 && x.body) {
      const b = x.body as { user_id?: number; email?: string; full_name?: string };
      if (typeof b.user_id === "number" && typeof b.email === "string")
        return { userId: b.user_id, email: b.email, fullName: b.full_name ?? "Bot" };
    }
  return undefined;
}

/**
 * Every message the cassette shows, from GET /messages answers and message events: the history
 * (there before the bot registered) and the live ones (after: delivered as events, or fetched by
 * a catch-up after a lost queue), the live ones by ID.
 */
function recordedMessages(cassette: Cassette): {
  history: Map<number, RecordedMessage>;
  live: RecordedMessage[];
  skipped: Map<string, number>;
} {
  const all = new Map<number, RecordedMessage>();
  const fromEvents = new Set<number>();
  const skipped = new Map<string, number>();
  /** Messages first seen before the first registration: the history. */
  const before = new Set<number>();
  let registered = false;
  for (const x of cassette.exchanges) {
    if (x.status !== 200 || !x.body) continue;
    if (x.method === "POST" && x.path === "/register") registered = true;
    if (x.method === "GET" && x.path === "/messages" && Array.isArray(x.body.messages))
      for (const m of x.body.messages as RecordedMessage[])
        if (!all.has(m.id)) {
          all.set(m.id, m);
          if (!registered) before.add(m.id);
        }
    for (const event of eventsOf(x)) {
      if (event.type === "message" && isObject(event.message)) {
        const m = event.message as unknown as RecordedMessage;
        all.set(m.id, m);
        fromEvents.add(m.id);
      } else if (event.type !== "heartbeat")
        skipped.set(String(event.type), (skipped.get(String(event.type)) ?? 0) + 1);
    }
  }
  const history = new Map<number, RecordedMessage>();
  const live: RecordedMessage[] = [];
  for (const m of [...all.values()].sort((a, b) => a.id - b.id))
    if (fromEvents.has(m.id) || !before.has(m.id)) live.push(m);
    else history.set(m.id, m);
  return { history, live, skipped };
}

/** Every user the cassette names: the registration's `realm_users`, GET /users, message senders. */
function recordedUsers(cassette: Cassette, messages: Iterable<RecordedMessage>): RecordedUser[] {
  const users = new Map<number, RecordedUser>();
  for (const x of cassette.exchanges) {
    if (x.status !== 200 || !x.body) continue;
    for (const key of ["realm_users", "members", "realm_non_active_users"])
      if (Array.isArray(x.body[key]))
        for (const u of x.body[key] as RecordedUser[])
          if (typeof u.user_id === "number") users.set(u.user_id, u);
  }
  for (const m of messages) {
    if (!users.has(m.sender_id))
      users.set(m.sender_id, {
        user_id: m.sender_id,
        email: m.sender_email,
        full_name: m.sender_full_name,
      });
    if (Array.isArray(m.display_recipient))
      for (const r of m.display_recipient)
        if (!users.has(r.id))
          users.set(r.id, { user_id: r.id, email: r.email, full_name: r.full_name });
  }
  return [...users.values()];
}

/** A channel as the cassette shows it. */
interface RecordedChannel {
  name: string;
  description: string;
  inviteOnly: boolean;
  subscribed: boolean;
  subscribers: number[];
}

/** Every channel the cassette names, with the bot's subscriptions and known subscribers. */
function recordedChannels(
  cassette: Cassette,
  messages: Iterable<RecordedMessage>,
): Map<number, RecordedChannel> {
  const channels = new Map<number, RecordedChannel>();
  for (const x of cassette.exchanges) {
    if (x.status !== 200 || !x.body) continue;
    for (const key of ["subscriptions", "streams", "never_subscribed", "unsubscribed"])
      if (Array.isArray(x.body[key]))
        for (const s of x.body[key] as Record<string, unknown>[]) {
          if (typeof s.stream_id !== "number" || typeof s.name !== "string") continue;
          const known = channels.get(s.stream_id);
          channels.set(s.stream_id, {
            name: s.name,
            description: typeof s.description === "string" ? s.description : "",
            inviteOnly: s.invite_only === true,
            subscribed:
              (known?.subscribed ?? false) || (key === "subscriptions" && x.path === "/register"),
            subscribers: Array.isArray(s.subscribers)
              ? (s.subscribers as number[])
              : (known?.subscribers ?? []),
          });
        }
  }
  for (const m of messages)
    if (
      m.type === "stream" &&
      typeof m.stream_id === "number" &&
      typeof m.display_recipient === "string"
    ) {
      const known = channels.get(m.stream_id);
      if (!known)
        channels.set(m.stream_id, {
          name: m.display_recipient,
          description: "",
          inviteOnly: false,
          subscribed: true,
          subscribers: [m.sender_id],
        });
      else if (!known.subscribers.includes(m.sender_id)) known.subscribers.push(m.sender_id);
    }
  return channels;
}

/**
 * Puts the cassette's situation into `realm`: its users (by their recorded, aliased, emails), its
 * channels with their subscribers (the bot subscribed where it was), and the recorded history
 * (GET /messages answers) as messages already there. The people's messages that arrived as
 * events while recording come back as `script`, to send in order once the bot runs.
 */
export function seedRealm(realm: Realm, cassette: Cassette, bot: SandboxUser): SeededRealm {
  const { history, live, skipped } = recordedMessages(cassette);
  const all = [...history.values(), ...live];
  const me = recordedBot(cassette);
  const userIds = new Map<number, number>();
  if (me) userIds.set(me.userId, bot.userId);
  for (const u of recordedUsers(cassette, all)) {
    if (userIds.has(u.user_id)) continue;
    const existing = realm.userByEmail(u.email);
    const user =
      existing ??
      realm.addUser({
        email: u.email,
        fullName: u.full_name,
        password: null,
        role: (u.role ?? 400) as Role,
        isBot: u.is_bot ?? false,
        botType: u.is_bot ? 1 : null,
        botOwnerId: null,
      });
    userIds.set(u.user_id, user.userId);
  }
  const streamIds = new Map<number, number>();
  const channelOf = new Map<number, Channel>();
  for (const [recordedId, c] of recordedChannels(cassette, all)) {
    const channel =
      realm.channelByName(c.name) ?? realm.addChannel(c.name, c.description, c.inviteOnly);
    streamIds.set(recordedId, channel.streamId);
    channelOf.set(recordedId, channel);
    if (c.subscribed) realm.subscribe(channel, bot.userId);
    for (const id of c.subscribers) {
      const mapped = userIds.get(id);
      if (mapped !== undefined) realm.subscribe(channel, mapped);
    }
  }
  const messageIds = new Map<number, number>();
  const script: ScriptedMessage[] = [];
  const toScript = (m: RecordedMessage): ScriptedMessage => ({
    recordedId: m.id,
    senderEmail: m.sender_email,
    kind: m.type,
    ...(m.type === "stream"
      ? { channel: m.display_recipient as string, topic: m.subject ?? m.topic ?? "" }
      : { recipientEmails: (m.display_recipient as { email: string }[]).map((r) => r.email) }),
    content: m.content,
  });
  for (const m of [...history.values()].sort((a, b) => a.id - b.id)) {
    const posted = postScripted(realm, toScript(m));
    if (posted !== undefined) messageIds.set(m.id, posted);
  }
  for (const m of live) if (m.sender_id !== me?.userId) script.push(toScript(m));
  return { userIds, streamIds, messageIds, script, skipped };
}

/** Sends one scripted message into the realm as its sender; returns its new ID (undefined if its people or channel are unknown). */
export function postScripted(realm: Realm, m: ScriptedMessage): number | undefined {
  const sender = realm.userByEmail(m.senderEmail);
  if (!sender) return undefined;
  if (m.kind === "stream") {
    const channel = realm.channelByName(m.channel ?? "");
    if (!channel) return undefined;
    return realm.postMessage({
      sender,
      kind: "stream",
      channel,
      topic: m.topic,
      content: m.content,
    }).id;
  }
  const recipients = (m.recipientEmails ?? [])
    .map((email) => realm.userByEmail(email)?.userId)
    .filter((id): id is number => id !== undefined);
  return realm.postMessage({ sender, kind: "private", recipients, content: m.content }).id;
}
