// Who may do what in the sandbox: roles, administrator-only endpoints and special permissions.
import { ROLES } from "../api/common.js";
import { badRequest } from "./errors.js";
import type { Realm } from "./realm.js";
import type { SandboxUser } from "./model.js";

/** Special permissions a server operator grants outside the role system. */
export const SPECIAL_PERMISSIONS = ["can_create_users", "can_change_user_emails"] as const;
export type SpecialPermission = (typeof SPECIAL_PERMISSIONS)[number];

export const isOwner = (u: SandboxUser): boolean => u.role === ROLES.owner;
export const isAdmin = (u: SandboxUser): boolean =>
  u.role === ROLES.owner || u.role === ROLES.administrator;
export const isModeratorOrAbove = (u: SandboxUser): boolean => u.role <= ROLES.moderator;
export const isGuest = (u: SandboxUser): boolean => u.role === ROLES.guest;

/** The `is_owner`, `is_admin`, `is_guest` flags of a user object. */
export const roleFlags = (u: SandboxUser) => ({
  is_owner: isOwner(u),
  is_admin: isAdmin(u),
  is_guest: isGuest(u),
});

/** Administrator-only endpoints refuse members, moderators, guests and bots with `BAD_REQUEST`. */
export function requireAdmin(user: SandboxUser): void {
  if (!isAdmin(user)) throw badRequest("Must be an organization administrator");
}

export function requireOwner(user: SandboxUser): void {
  if (!isOwner(user)) throw badRequest("Must be an organization owner");
}

export function hasPermission(user: SandboxUser, permission: SpecialPermission): boolean {
  return user.permissions.has(permission);
}

/** Active owners of the realm. */
export const activeOwners = (realm: Realm): SandboxUser[] =>
  [...realm.users.values()].filter((u) => u.isActive && isOwner(u));
