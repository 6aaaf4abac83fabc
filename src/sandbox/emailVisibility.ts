// Email address visibility: who sees a user's real email, and the placeholder API email everyone else gets.
import { ROLES } from "../api/common.js";
import type { RealmState } from "./realmState.js";
import type { SandboxUser } from "./model.js";

/** `email_address_visibility` values. */
export const EMAIL_VISIBILITY = {
  everyone: 1,
  members: 2,
  administrators: 3,
  nobody: 4,
  moderators: 5,
} as const;

const visibilityOf = (user: SandboxUser): number =>
  Number(user.settings.email_address_visibility ?? EMAIL_VISIBILITY.everyone);

/** `user<id>@<realm_host>`: the API email of a user whose real email is not public. */
export const placeholderEmail = (realm: RealmState, user: SandboxUser): string =>
  `user${user.userId}@${realm.settings.host}`;

/**
 * Whether `viewer` (undefined for a visitor without credentials) may see `target`'s real email.
 * Bots' emails and one's own are always visible.
 */
export function canSeeRealEmail(viewer: SandboxUser | undefined, target: SandboxUser): boolean {
  if (target.isBot) return true;
  if (viewer && viewer.userId === target.userId) return true;
  switch (visibilityOf(target)) {
    case EMAIL_VISIBILITY.everyone:
      return true;
    case EMAIL_VISIBILITY.members:
      return viewer !== undefined && viewer.role <= ROLES.member;
    case EMAIL_VISIBILITY.administrators:
      return viewer !== undefined && viewer.role <= ROLES.administrator;
    case EMAIL_VISIBILITY.moderators:
      return viewer !== undefined && viewer.role <= ROLES.moderator;
    default:
      return false;
  }
}

/** The API email (`email` field): the real one only when visible to everyone. */
export function apiEmail(realm: RealmState, user: SandboxUser): string {
  return user.isBot || visibilityOf(user) === EMAIL_VISIBILITY.everyone
    ? user.email
    : placeholderEmail(realm, user);
}

/** The `delivery_email` field as `viewer` receives it. */
export function deliveryEmail(viewer: SandboxUser | undefined, target: SandboxUser): string | null {
  return canSeeRealEmail(viewer, target) ? target.email : null;
}

/**
 * Finds a user by an email as a client may give it: the placeholder works for every user, the
 * real email only when `viewer` may see it, and the API email always.
 */
export function findUserByEmail(
  realm: RealmState,
  viewer: SandboxUser | undefined,
  email: string,
): SandboxUser | undefined {
  const wanted = email.toLowerCase();
  const host = realm.settings.host.toLowerCase();
  const placeholder = /^user(\d+)@(.+)$/.exec(wanted);
  if (placeholder && placeholder[2] === host) {
    const byId = realm.users.get(Number(placeholder[1]));
    if (byId) return byId;
  }
  for (const user of realm.users.withEmail(wanted))
    if (canSeeRealEmail(viewer, user) || apiEmail(realm, user).toLowerCase() === wanted)
      return user;
  return undefined;
}
