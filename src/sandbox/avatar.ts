// Avatar URLs as the server's get_avatar_field computes them: uploaded avatars, the external provider, and when to send null.
import { createHash } from "node:crypto";
import { canSeeRealEmail } from "./emailVisibility.js";
import type { RealmState } from "./realmState.js";
import type { SandboxUser } from "./model.js";

/** The uploaded avatar's URL, or the external provider's (computed from the real email), versioned. */
export function avatarUrl(realm: RealmState, user: SandboxUser): string {
  if (user.avatarUploaded)
    return `http://${realm.settings.host}/user_avatars/${user.userId}/avatar.png?version=${user.avatarVersion}`;
  const hash = createHash("md5").update(user.email.toLowerCase()).digest("hex");
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${user.avatarVersion}`;
}

/**
 * `avatar_url` as `viewer` gets it: null only when the client computes external-provider avatars
 * itself (`client_gravatar`, `client_extavatar`), the viewer may see the user's real email, and
 * the user never uploaded an avatar; the URL otherwise.
 */
export function avatarField(
  realm: RealmState,
  viewer: SandboxUser | undefined,
  user: SandboxUser,
  clientComputes: boolean,
): string | null {
  if (clientComputes && !user.avatarUploaded && canSeeRealEmail(viewer, user)) return null;
  return avatarUrl(realm, user);
}
