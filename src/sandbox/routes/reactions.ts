// Sandbox routes for emoji reactions: add and remove, with `reaction` events to everyone who has the message.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import type { Realm, SandboxUser, StoredMessage, StoredReaction } from "../realm.js";
import { badRequest, SandboxError } from "../errors.js";
import { resolveEmoji } from "../emoji.js";
import { apiEmail } from "../emailVisibility.js";
import { visibleMessage } from "./messages.js";

function reactionEvent(
  realm: Realm,
  message: StoredMessage,
  op: "add" | "remove",
  reaction: StoredReaction,
  user: SandboxUser,
): void {
  const audience = new Set(message.flags.keys());
  for (const queue of realm.queues.all()) {
    if (queue.filter.allPublicStreams && realm.canSee(realm.users.get(queue.userId)!, message))
      audience.add(queue.userId);
  }
  realm.pushEvent(audience, {
    type: "reaction",
    op,
    message_id: message.id,
    emoji_name: reaction.emojiName,
    emoji_code: reaction.emojiCode,
    reaction_type: reaction.reactionType,
    user_id: user.userId,
    user: {
      user_id: user.userId,
      email: apiEmail(realm, user),
      full_name: user.fullName,
      is_mirror_dummy: false,
    },
  });
}

const same = (a: StoredReaction, b: StoredReaction): boolean =>
  a.userId === b.userId && a.reactionType === b.reactionType && a.emojiCode === b.emojiCode;

export const reactionRoutes: Route[] = [
  route(endpoints.messages.addReaction, ({ realm, user, params }) => {
    const message = visibleMessage(realm, user, params.message_id);
    const emoji = resolveEmoji(
      realm.realmEmoji,
      params.emoji_name,
      params.emoji_code,
      params.reaction_type,
    );
    const reaction: StoredReaction = { ...emoji, userId: user.userId };
    if (message.reactions.some((r) => same(r, reaction)))
      throw new SandboxError("REACTION_ALREADY_EXISTS", "Reaction already exists.");
    message.reactions.push(reaction);
    reactionEvent(realm, message, "add", reaction, user);
    return {};
  }),

  route(endpoints.messages.removeReaction, ({ realm, user, params }) => {
    const message = visibleMessage(realm, user, params.message_id);
    if (params.emoji_name === undefined && params.emoji_code === undefined)
      throw badRequest(
        "At least one of the following arguments must be present: emoji_name, emoji_code",
      );
    const mine = message.reactions.filter((r) => r.userId === user.userId);
    const found = mine.find(
      (r) =>
        (params.emoji_code === undefined || r.emojiCode === params.emoji_code) &&
        (params.emoji_name === undefined ||
          params.emoji_code !== undefined ||
          r.emojiName === params.emoji_name) &&
        (params.reaction_type === undefined || r.reactionType === params.reaction_type),
    );
    if (!found) throw new SandboxError("REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
    message.reactions.splice(message.reactions.indexOf(found), 1);
    reactionEvent(realm, message, "remove", found, user);
    return {};
  }),
];
