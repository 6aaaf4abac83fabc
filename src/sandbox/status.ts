// User statuses in the sandbox: stored statuses, the update rules (60 characters, emoji checks) and events.
import type { EmojiReactionType } from "../api/common.js";
import { badRequest } from "./errors.js";
import { resolveEmoji } from "./emoji.js";
import type { Realm } from "./realm.js";

export const STATUS_TEXT_LIMIT = 60;

export interface UserStatus {
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: EmojiReactionType | "";
}

/** A status emoji, checked as the server checks reaction emoji (one resolver for both). */
function statusEmoji(
  realm: Realm,
  name: string,
  code: string | undefined,
  type: EmojiReactionType | undefined,
): Pick<UserStatus, "emoji_name" | "emoji_code" | "reaction_type"> {
  const emoji = resolveEmoji(realm.realmEmoji, name, code, type);
  return {
    emoji_name: emoji.emojiName,
    emoji_code: emoji.emojiCode,
    reaction_type: emoji.reactionType,
  };
}

const statusesByRealm = new WeakMap<Realm, Map<number, UserStatus>>();

/** Every user's current status, by user ID; a user without one is absent. */
export function userStatuses(realm: Realm): Map<number, UserStatus> {
  let statuses = statusesByRealm.get(realm);
  if (!statuses) {
    statuses = new Map();
    statusesByRealm.set(realm, statuses);
  }
  return statuses;
}

export interface StatusUpdate {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: EmojiReactionType;
}

/**
 * Checks an update and applies it; returns the changed fields (the `user_status` event body).
 * Empty `status_text` clears the text, empty `emoji_name` the emoji; a status with neither is gone.
 */
export function updateStatus(
  realm: Realm,
  userId: number,
  update: StatusUpdate,
): Partial<UserStatus> {
  const { status_text, emoji_name, emoji_code, reaction_type } = update;
  // The server's order: neither text nor emoji name is "no new values", even with a code or type.
  if (status_text === undefined && emoji_name === undefined)
    throw badRequest("Client did not pass any new values.");
  if (status_text !== undefined && [...status_text].length > STATUS_TEXT_LIMIT)
    throw badRequest(`status_text is too long (limit: ${STATUS_TEXT_LIMIT} characters)`);
  if (emoji_name === undefined && (emoji_code !== undefined || reaction_type !== undefined))
    throw badRequest(
      "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
    );

  const changed: Partial<UserStatus> = {};
  if (status_text !== undefined) changed.status_text = status_text.trim();
  if (emoji_name !== undefined) {
    Object.assign(
      changed,
      emoji_name === ""
        ? { emoji_name: "", emoji_code: "", reaction_type: "" }
        : statusEmoji(realm, emoji_name, emoji_code, reaction_type),
    );
  }
  const statuses = userStatuses(realm);
  const current = statuses.get(userId) ?? {
    status_text: "",
    emoji_name: "",
    emoji_code: "",
    reaction_type: "",
  };
  const next = { ...current, ...changed };
  if (next.status_text === "" && next.emoji_name === "") statuses.delete(userId);
  else statuses.set(userId, next);
  return changed;
}
