// Deleting a message, as the server does: who may (the realm's delete groups and time limit), the message gone from history, and the `delete_message` event.
import { ROLES } from "../api/common.js";
import type { Realm } from "./realm.js";
import type { RoleGroup, SandboxUser, StoredMessage } from "./model.js";
import { badRequest } from "./errors.js";
import { lowerBound } from "./messageIndex.js";

/** The highest role number (100 owner … 600 guest) a role group holds; 0 for nobody. */
const GROUP_MAX_ROLE: Record<RoleGroup, number> = {
  "role:everyone": ROLES.guest,
  "role:members": ROLES.member,
  "role:moderators": ROLES.moderator,
  "role:administrators": ROLES.administrator,
  "role:owners": ROLES.owner,
  "role:nobody": 0,
};

const inGroup = (user: SandboxUser, group: RoleGroup): boolean =>
  user.role <= GROUP_MAX_ROLE[group];

/**
 * The server's `validate_can_delete_message`: a member of `can_delete_any_message_group`
 * (administrators by default) deletes any message at any time; anyone else only a message they
 * sent (or one of their bots sent), while `can_delete_own_message_group` (everyone by default)
 * includes them and `message_content_delete_limit_seconds` has not passed since it was sent.
 */
export function checkDelete(realm: Realm, user: SandboxUser, message: StoredMessage): void {
  const s = realm.settings;
  if (inGroup(user, s.canDeleteAnyMessageGroup ?? "role:administrators")) return;
  const sender = realm.users.get(message.senderId);
  const own = message.senderId === user.userId || sender?.botOwnerId === user.userId;
  if (!own || !inGroup(user, s.canDeleteOwnMessageGroup ?? "role:everyone"))
    throw badRequest("You don't have permission to delete this message");
  const limit = s.messageContentDeleteLimitSeconds;
  if (limit !== null && realm.nowSeconds() - message.timestamp > limit)
    throw badRequest("The time limit for deleting this message has passed");
}

/**
 * Deletes a message from the realm's history and its index, and tells who could see it: a
 * channel message its channel's active subscribers, a direct message its recipients. The event
 * names the message in `message_ids` for a queue with `bulk_message_deletion`, in `message_id`
 * otherwise; a channel message's event carries its channel and topic.
 */
export function deleteMessage(realm: Realm, message: StoredMessage): void {
  const at = lowerBound(realm.messages, message.id);
  if (realm.messages[at] !== message) throw badRequest("Message already deleted");
  realm.messages.splice(at, 1);
  realm.index.remove(message);
  const channel = message.kind === "stream" ? realm.channels.get(message.streamId!) : undefined;
  const audience = channel
    ? [...channel.subscribers].filter((id) => realm.users.get(id)?.isActive)
    : message.recipients;
  const wanted = new Set(audience);
  for (const queue of realm.queues.all()) {
    if (!wanted.has(queue.userId)) continue;
    const where = channel
      ? {
          message_type: "stream",
          stream_id: channel.streamId,
          topic: realm.displayTopic(message.topic, queue.filter.allowEmptyTopicName),
        }
      : { message_type: "private" };
    queue.push(
      queue.filter.bulkMessageDeletion
        ? { type: "delete_message", ...where, message_ids: [message.id] }
        : { type: "delete_message", ...where, message_id: message.id },
    );
  }
}
