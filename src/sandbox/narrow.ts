// The one narrow evaluator: GET /messages, matches_narrow, flag updates and queue narrows all filter here.
import type { Narrow } from "../api/common.js";
import { badRequest, SandboxError } from "./errors.js";
import { findUserByEmail } from "./emailVisibility.js";
import type { RealmState } from "./realmState.js";
import type { SandboxUser, StoredMessage } from "./model.js";

export interface NarrowTerm {
  operator: string;
  operand: string | number | number[];
  negated: boolean;
}

const OPERATORS = new Set([
  "channel",
  "stream",
  "channels",
  "streams",
  "topic",
  "subject",
  "sender",
  "dm",
  "pm-with",
  "dm-including",
  "group-pm-with",
  "is",
  "has",
  "search",
  "id",
  "near",
  "with",
]);
const IS_OPERANDS = new Set([
  "dm",
  "private",
  "starred",
  "mentioned",
  "alerted",
  "unread",
  "read",
  "resolved",
  "followed",
  "muted",
]);
const HAS_OPERANDS = new Set(["link", "image", "attachment", "reaction"]);
const ALIASES: Record<string, string> = {
  stream: "channel",
  streams: "channels",
  subject: "topic",
  "pm-with": "dm",
  "group-pm-with": "dm-including",
};

/** The server's `BadNarrowOperatorError`: `BAD_NARROW` with the description in `desc`. */
export const badNarrow = (desc: string): SandboxError =>
  new SandboxError("BAD_NARROW", `Invalid narrow operator: ${desc}`, { extra: { desc } });

/** Normalises narrow terms (objects or pairs, legacy names) and refuses unknown operators. */
export function parseNarrow(narrow: Narrow | undefined): NarrowTerm[] {
  return (narrow ?? []).map((raw) => {
    const term = Array.isArray(raw)
      ? { operator: raw[0], operand: raw[1], negated: false }
      : { operator: raw.operator, operand: raw.operand, negated: raw.negated ?? false };
    if (term.operator === "search" && String(term.operand).trim() === "")
      throw badRequest("operand cannot be blank.");
    if (!OPERATORS.has(term.operator)) throw badNarrow(`unknown operator ${term.operator}`);
    const operator = ALIASES[term.operator] ?? term.operator;
    if (operator === "is" && !IS_OPERANDS.has(String(term.operand)))
      throw badNarrow(`unknown 'is' operand ${String(term.operand)}`);
    if (operator === "has" && !HAS_OPERANDS.has(String(term.operand)))
      throw badNarrow(`unknown 'has' operand ${String(term.operand)}`);
    if (operator === "channels" && !["public", "web-public"].includes(String(term.operand)))
      throw badNarrow(`unknown channels operand ${String(term.operand)}`);
    if (operator === "id" && !/^\d+$/.test(String(term.operand)))
      throw badNarrow("Invalid message ID");
    return { ...term, operator };
  });
}

/** Quoted phrases and words of a search operand, lowercased. */
export function searchWords(operand: string): string[] {
  const words: string[] = [];
  for (const match of operand.matchAll(/"([^"]+)"|(\S+)/g))
    words.push((match[1] ?? match[2]!).toLowerCase());
  return words;
}

/** Text of rendered HTML, tags removed and the common entities decoded. */
function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/** Wraps each search word found in the text parts of `html` in `<span class="highlight">`. */
export function highlightHtml(html: string, words: readonly string[]): string {
  if (words.length === 0) return html;
  const pattern = new RegExp(words.map((w) => escapeRegExp(escapeHtml(w))).join("|"), "gi");
  return html
    .split(/(<[^>]*>)/)
    .map((part) =>
      part.startsWith("<") ? part : part.replace(pattern, '<span class="highlight">$&</span>'),
    )
    .join("");
}

/** The topic, HTML-escaped, with search words highlighted. */
export function highlightTopic(topic: string, words: readonly string[]): string {
  return highlightHtml(escapeHtml(topic), words);
}

/** A narrow bound to a realm and a viewer: a predicate over stored messages. */
export class CompiledNarrow {
  readonly terms: NarrowTerm[];
  readonly searchWords: string[];
  readonly #realm: RealmState;
  readonly #viewer: SandboxUser;
  readonly #tests: ((m: StoredMessage) => boolean)[];

  constructor(realm: RealmState, viewer: SandboxUser, terms: NarrowTerm[]) {
    this.terms = terms;
    this.#realm = realm;
    this.#viewer = viewer;
    this.searchWords = terms
      .filter((t) => t.operator === "search" && !t.negated)
      .flatMap((t) => searchWords(String(t.operand)));
    this.#checkNotBothChannelAndDm();
    this.#tests = terms.map((term) => {
      const test = this.#compile(term);
      return term.negated ? (m: StoredMessage) => !test(m) : test;
    });
  }

  /** The server's `can_narrow_define_conversation`: a `dm` term, or a channel and a topic. */
  #definesConversation(): boolean {
    const ops = new Set(this.terms.map((t) => t.operator));
    return ops.has("dm") || (ops.has("channel") && ops.has("topic"));
  }

  /** Refuses a narrow that asks for channel messages and direct messages at once (positive terms). */
  #checkNotBothChannelAndDm(): void {
    let channel = false;
    let dm = false;
    for (const t of this.terms) {
      const isDm = t.operator === "is" && (t.operand === "dm" || t.operand === "private");
      if (["channel", "channels", "topic"].includes(t.operator) && !t.negated) channel = true;
      else if (isDm && t.negated) channel = true;
      else if ((isDm || t.operator === "dm" || t.operator === "dm-including") && !t.negated)
        dm = true;
    }
    if (channel && dm)
      throw badNarrow("No message can be both a channel message and direct message");
  }

  matches(message: StoredMessage): boolean {
    return this.#tests.every((test) => test(message));
  }

  /** Channel IDs whose whole history the narrow may read (a channel term or `channels:public`). */
  historicalChannels(): Set<number> | "public" | undefined {
    // As the server's `ok_to_include_history`: an `is` term (but `is:resolved`) reads only own messages.
    if (this.terms.some((t) => t.operator === "is" && t.operand !== "resolved")) return undefined;
    for (const term of this.terms) {
      if (term.negated) continue;
      if (term.operator === "channels") return "public";
      if (term.operator === "channel") {
        const channel = this.#channel(term.operand);
        return new Set([channel.streamId]);
      }
    }
    return undefined;
  }

  /**
   * The narrowest index list holding every message the narrow can match: a channel's topic, a
   * channel, or a DM conversation, from the narrow's positive terms; undefined when none applies.
   */
  indexedSource(): readonly StoredMessage[] | undefined {
    const positive = this.terms.filter((t) => !t.negated);
    const channelTerm = positive.find((t) => t.operator === "channel");
    const topicTerm = positive.find((t) => t.operator === "topic");
    if (channelTerm) {
      const streamId = this.#channel(channelTerm.operand).streamId;
      if (topicTerm) return this.#realm.index.topic(streamId, this.#topic(topicTerm.operand));
      return this.#realm.index.channel(streamId);
    }
    const dmTerm = positive.find((t) => t.operator === "dm");
    if (dmTerm) {
      const ids = new Set([...this.#users(dmTerm.operand), this.#viewer.userId]);
      const recipientId = this.#realm.dmRecipientId([...ids]);
      return recipientId === undefined ? [] : this.#realm.index.conversation(recipientId);
    }
    return undefined;
  }

  /** A topic operand as stored: trimmed, and the empty topic's display name meaning "". */
  #topic(operand: NarrowTerm["operand"]): string {
    const topic = String(operand).trim().toLowerCase();
    return topic === this.#realm.settings.emptyTopicDisplayName.toLowerCase() ? "" : topic;
  }

  #channel(operand: NarrowTerm["operand"]) {
    const channel =
      typeof operand === "number" || /^\d+$/.test(String(operand))
        ? this.#realm.channels.get(Number(operand))
        : this.#realm.channelByName(String(operand));
    if (!channel) throw badNarrow(`unknown channel ${String(operand)}`);
    return channel;
  }

  #user(operand: string | number): number {
    if (operand === "me") return this.#viewer.userId;
    const user =
      typeof operand === "number" || /^\d+$/.test(operand)
        ? this.#realm.users.get(Number(operand))
        : findUserByEmail(this.#realm, this.#viewer, operand);
    if (!user) throw badNarrow(`unknown user ${String(operand)}`);
    return user.userId;
  }

  /** A `dm` operand's users: IDs, or comma-separated emails; any unknown is `unknown user in …`. */
  #users(operand: NarrowTerm["operand"]): number[] {
    const list = Array.isArray(operand)
      ? operand
      : typeof operand === "number"
        ? [operand]
        : operand.split(",").map((s) => s.trim());
    try {
      return list.map((item) => this.#user(item));
    } catch {
      throw badNarrow(
        `unknown user in ${Array.isArray(operand) ? `[${operand.join(", ")}]` : String(operand)}`,
      );
    }
  }

  #flags(m: StoredMessage): Set<string> {
    return new Set(this.#realm.flagsFor(m, this.#viewer));
  }

  #compile(term: NarrowTerm): (m: StoredMessage) => boolean {
    const realm = this.#realm;
    const { operand } = term;
    switch (term.operator) {
      case "channel": {
        const id = this.#channel(operand).streamId;
        return (m) => m.kind === "stream" && m.streamId === id;
      }
      case "channels":
        return (m) => m.kind === "stream" && !realm.channels.get(m.streamId!)?.inviteOnly;
      case "topic": {
        const wanted = this.#topic(operand);
        return (m) => m.kind === "stream" && m.topic.toLowerCase() === wanted;
      }
      case "sender": {
        const id = this.#user(operand as string | number);
        return (m) => m.senderId === id;
      }
      case "dm": {
        const ids = new Set([...this.#users(operand), this.#viewer.userId]);
        const key = [...ids].sort((a, b) => a - b).join(",");
        return (m) => m.kind === "private" && m.recipients.join(",") === key;
      }
      case "dm-including": {
        const ids = Array.isArray(operand) ? this.#users(operand) : [this.#user(operand)];
        return (m) => m.kind === "private" && ids.every((id) => m.recipients.includes(id));
      }
      case "is":
        return this.#is(String(operand));
      case "has":
        return this.#has(String(operand));
      case "search": {
        const words = searchWords(String(operand));
        return (m) => {
          const text = `${plainText(m.renderedContent)} ${m.topic}`.toLowerCase();
          return words.every((w) => text.includes(w));
        };
      }
      case "id":
        return (m) => m.id === Number(operand);
      case "with": {
        const target = realm.message(Number(operand));
        if (!target || !realm.canSee(this.#viewer, target)) {
          // The server drops a `with` it cannot follow when the rest names a conversation.
          if (this.#definesConversation()) return () => true;
          throw badNarrow("Invalid 'with' operator");
        }
        return (m) =>
          m.kind === target.kind &&
          (m.kind === "private"
            ? m.recipientId === target.recipientId
            : m.streamId === target.streamId &&
              m.topic.toLowerCase() === target.topic.toLowerCase());
      }
      default: // `near` only moves the anchor.
        return () => true;
    }
  }

  #is(operand: string): (m: StoredMessage) => boolean {
    const realm = this.#realm;
    const viewer = this.#viewer.userId;
    switch (operand) {
      case "dm":
      case "private":
        return (m) => m.kind === "private";
      case "unread":
        return (m) => !this.#flags(m).has("read");
      case "read":
        return (m) => this.#flags(m).has("read");
      case "mentioned":
        return (m) => {
          const flags = this.#flags(m);
          return ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"].some((f) =>
            flags.has(f),
          );
        };
      case "alerted":
        return (m) => this.#flags(m).has("has_alert_word");
      case "resolved":
        return (m) => m.kind === "stream" && m.topic.startsWith("✔ ");
      case "followed":
        return (m) => m.kind === "stream" && realm.topicPolicy(viewer, m.streamId!, m.topic) === 3;
      case "muted":
        return (m) =>
          m.kind === "stream" &&
          (realm.topicPolicy(viewer, m.streamId!, m.topic) === 1 ||
            realm.subscriptionProperties.isMuted(viewer, m.streamId!));
      default: // starred and other flags
        return (m) => this.#flags(m).has(operand);
    }
  }

  #has(operand: string): (m: StoredMessage) => boolean {
    switch (operand) {
      case "link":
        return (m) => /<a\s[^>]*href=/i.test(m.renderedContent);
      case "image":
        return (m) => /<img\s/i.test(m.renderedContent);
      case "attachment":
        return (m) => /\/user_uploads\//.test(m.content);
      default:
        return (m) => m.reactions.length > 0;
    }
  }
}

/** Parses and binds a narrow in one step. */
export function compileNarrow(
  realm: RealmState,
  viewer: SandboxUser,
  narrow: Narrow | undefined,
): CompiledNarrow {
  return new CompiledNarrow(realm, viewer, parseNarrow(narrow));
}
