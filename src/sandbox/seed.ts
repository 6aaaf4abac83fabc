// The realm every sandbox starts with: one user of each role, a bot, two channels.
// The one owner (olivia) holds both special permissions; the administrator (adam) holds neither.
import type { Role } from "../api/common.js";
import type { Realm } from "./realm.js";
import { newSecret } from "./realm.js";
import type { SandboxUser } from "./model.js";
import { SPECIAL_PERMISSIONS, type SpecialPermission } from "./permissions.js";

export interface SeedUser {
  /** Short handle used by the test harness and `bot dev` (`olivia`, `bot`, ...). */
  handle: string;
  fullName: string;
  role: Role;
  isBot?: boolean;
  /** Special permissions: `can_create_users`, `can_change_user_emails`. */
  permissions?: readonly SpecialPermission[];
  /** Custom profile field values by field ID (see `SEED_PROFILE_FIELDS`). */
  profile?: Readonly<Record<number, string>>;
  avatarUploaded?: boolean;
}

export const SEED_USERS: readonly SeedUser[] = [
  {
    handle: "olivia",
    fullName: "Olivia Owner",
    role: 100,
    permissions: SPECIAL_PERMISSIONS,
    profile: { 1: "+1-555-0100", 2: "Runs **this** sandbox" },
  },
  { handle: "adam", fullName: "Adam Admin", role: 200, avatarUploaded: true },
  { handle: "max", fullName: "Max Moderator", role: 300 },
  {
    handle: "mia",
    fullName: "Mia Member",
    role: 400,
    profile: { 3: "1990-04-01", 4: "https://mia.example" },
  },
  { handle: "gus", fullName: "Gus Guest", role: 600 },
  { handle: "bot", fullName: "Topic Bot", role: 400, isBot: true },
];

export const SEED_CHANNELS = [
  { name: "general", description: "Everyone's channel" },
  { name: "sandbox", description: "Try things here" },
] as const;

/** The bot account's name and email, when a test wants its own (`test-bot`, as ported tests expect). */
export interface SeedBot {
  fullName?: string;
  email?: string;
}

/** Fills an empty realm; returns the seeded users by handle. */
export function seedRealm(realm: Realm, bot: SeedBot = {}): Map<string, SandboxUser> {
  const byHandle = new Map<string, SandboxUser>();
  let ownerId: number | null = null;
  for (const seed of SEED_USERS) {
    const user = realm.addUser({
      email: seed.isBot
        ? (bot.email ?? `${seed.handle}-bot@${realm.settings.host}`)
        : `${seed.handle}@${realm.settings.host}`,
      fullName: seed.isBot ? (bot.fullName ?? seed.fullName) : seed.fullName,
      password: seed.isBot ? null : newSecret(),
      role: seed.role,
      isBot: seed.isBot ?? false,
      botType: seed.isBot ? 1 : null,
      botOwnerId: seed.isBot ? ownerId : null,
      permissions: new Set(seed.permissions ?? []),
      avatarUploaded: seed.avatarUploaded ?? false,
      profileData: new Map(Object.entries(seed.profile ?? {}).map(([id, v]) => [Number(id), v])),
    });
    if (seed.role === 100) ownerId = user.userId;
    byHandle.set(seed.handle, user);
  }
  for (const { name, description } of SEED_CHANNELS) {
    const channel = realm.addChannel(name, description);
    for (const user of byHandle.values()) realm.subscribe(channel, user.userId);
  }
  // Every real server has its system bots; creating it now keeps its ID after the seeded users'.
  realm.systemBot();
  return byHandle;
}
