// Sandbox routes for emoji reactions: add and remove, with `reaction` events to everyone who has the message.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import type { SandboxUser, StoredMessage, StoredReaction } from "../model.js";
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

export const reactionRoutes: Route[] = [
  route(endpoints.messages.addReaction, ({ realm, user, params }) => {
    const message = visibleMessage(realm, user, params.message_id);
    // As the server's check_add_reaction: the code and type come from the name unless both are
    // given; the same reaction twice is refused before the name is checked; a reaction another
    // user made with that code is a vote, which takes its name and skips the checks (so an old
    // name or a since-deactivated custom emoji can still be voted for).
    let code = params.emoji_code;
    let type = params.reaction_type;
    if (code === undefined || type === undefined)
      ({ emojiCode: code, reactionType: type } = resolveEmoji(realm.realmEmoji, params.emoji_name));
    const sameEmoji = (r: StoredReaction) => r.emojiCode === code && r.reactionType === type;
    if (message.reactions.some((r) => r.userId === user.userId && sameEmoji(r)))
      throw new SandboxError("REACTION_ALREADY_EXISTS", "Reaction already exists.");
    const vote = message.reactions.find(sameEmoji);
    const emoji = vote
      ? { emojiName: vote.emojiName, emojiCode: code, reactionType: type }
      : resolveEmoji(realm.realmEmoji, params.emoji_name, code, type);
    const reaction: StoredReaction = { ...emoji, userId: user.userId };
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
    // As the server's remove_reaction: the code from the name when none is given (an unknown name
    // is refused), the type `unicode_emoji` unless given; the name itself is never compared.
    const code = params.emoji_code ?? resolveEmoji(realm.realmEmoji, params.emoji_name!).emojiCode;
    const type = params.reaction_type ?? "unicode_emoji";
    const found = message.reactions.find(
      (r) => r.userId === user.userId && r.emojiCode === code && r.reactionType === type,
    );
    if (!found) throw new SandboxError("REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
    message.reactions.splice(message.reactions.indexOf(found), 1);
    reactionEvent(realm, message, "remove", found, user);
    return {};
  }),
];
