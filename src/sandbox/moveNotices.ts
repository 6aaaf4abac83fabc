// Notification Bot's notices after a move, as the server posts them: resolved/unresolved topics and move breadcrumbs.
import type { Realm } from "./realm.js";
import type { Channel, SandboxUser, StoredMessage } from "./model.js";

/** Where the messages were before the move. */
export interface MoveOrigin {
  channel: Channel;
  topic: string;
}

export interface MoveNoticeRequest {
  editor: SandboxUser;
  /** The message the request named. */
  target: StoredMessage;
  /** Every message that moved. */
  moved: StoredMessage[];
  from: MoveOrigin;
  topicChanged: boolean;
  channelChanged: boolean;
  resolved: boolean;
  unresolved: boolean;
  contentChanged: boolean;
  propagateMode: "change_one" | "change_later" | "change_all";
  /** `send_notification_to_old_thread` (default false) and `send_notification_to_new_thread` (default true). */
  notifyOld: boolean;
  notifyNew: boolean;
}

/** A silent mention, as the server writes the acting user into its notices. */
const silentMention = (user: SandboxUser): string => `@_**${user.fullName}|${user.userId}**`;

/** A channel-topic link in the server's Markdown (`#**channel>topic**`). */
const topicLink = (channel: Channel, topic: string): string => `#**${channel.name}>${topic}**`;

/** The message's permanent link, in the server's `#narrow/channel/<id>-<name>/topic/<topic>/near/<id>` form. */
function messageLink(realm: Realm, channel: Channel, topic: string, id: number): string {
  const slug = (text: string): string =>
    encodeURIComponent(text.replace(/ /g, "-")).replace(/%/g, ".");
  return `http://${realm.settings.host}/#narrow/channel/${channel.streamId}-${slug(channel.name)}/topic/${slug(topic)}/near/${id}`;
}

/**
 * Whether a move took the whole topic, as the mover sees it: `change_all`, or no message the
 * mover can see is left in the original topic (the server's moved_all_visible_messages).
 */
export function movedWholeTopic(
  realm: Realm,
  editor: SandboxUser,
  from: MoveOrigin,
  propagateMode: MoveNoticeRequest["propagateMode"],
): boolean {
  if (propagateMode === "change_all") return true;
  const lower = from.topic.toLowerCase();
  return !realm.index
    .topic(from.channel.streamId, from.topic)
    .some(
      (m) =>
        m.streamId === from.channel.streamId &&
        m.topic.toLowerCase() === lower &&
        realm.canSee(editor, m),
    );
}

/**
 * Posts the notices a move makes on the server, as Notification Bot, read for the acting user:
 * "has marked this topic as (un)resolved" for a resolve-only edit; else the breadcrumbs to the
 * new topic ("was moved here from ...", by default) and the old one ("was moved to ...", when
 * asked).
 */
export function postMoveNotices(realm: Realm, req: MoveNoticeRequest): void {
  const { editor, target } = req;
  const to = { channel: realm.channels.get(target.streamId!)!, topic: target.topic };
  const post = (where: MoveOrigin, content: string): void => {
    realm.postMessage({
      sender: realm.systemBot(),
      kind: "stream",
      channel: where.channel,
      topic: where.topic,
      content,
      client: "Internal",
      extraFlags: (userId) => (userId === editor.userId ? ["read"] : []),
    });
  };
  const user = silentMention(editor);
  if (req.topicChanged && !req.contentChanged && !req.channelChanged) {
    if (req.resolved) return post(to, `${user} has marked this topic as resolved.`);
    if (req.unresolved) return post(to, `${user} has marked this topic as unresolved.`);
  }
  const count = req.moved.length;
  const movedAll = movedWholeTopic(realm, editor, req.from, req.propagateMode);
  const isResolveToggle = req.resolved || req.unresolved;
  if (req.notifyNew && (req.channelChanged || (req.topicChanged && !isResolveToggle))) {
    const movedIds = new Set(req.moved.map((m) => m.id));
    const lower = to.topic.toLowerCase();
    const preexisting = realm.index
      .topic(to.channel.streamId, to.topic)
      .some(
        (m) =>
          !movedIds.has(m.id) &&
          m.streamId === to.channel.streamId &&
          m.topic.toLowerCase() === lower &&
          realm.canSee(editor, m),
      );
    const from = topicLink(req.from.channel, req.from.topic);
    post(
      to,
      !preexisting && movedAll
        ? `This topic was moved here from ${from} by ${user}.`
        : count === 1
          ? `[A message](${messageLink(realm, to.channel, to.topic, target.id)}) was moved here from ${from} by ${user}.`
          : `${count} messages were moved here from ${from} by ${user}.`,
    );
  }
  if (req.notifyOld) {
    const where = topicLink(to.channel, to.topic);
    post(
      req.from,
      movedAll
        ? `This topic was moved to ${where} by ${user}.`
        : count === 1
          ? `A message was moved from this topic to ${where} by ${user}.`
          : `${count} messages were moved from this topic to ${where} by ${user}.`,
    );
  }
}
