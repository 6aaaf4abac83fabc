// The realm every sandbox starts with: one user of each role, a bot, two channels.
import type { Role } from "../api/common.js";
import { newSecret, type Realm, type SandboxUser } from "./realm.js";

export interface SeedUser {
  /** Short handle used by the test harness and `bot dev` (`olivia`, `bot`, ...). */
  handle: string;
  fullName: string;
  role: Role;
  isBot?: boolean;
}

export const SEED_USERS: readonly SeedUser[] = [
  { handle: "olivia", fullName: "Olivia Owner", role: 100 },
  { handle: "adam", fullName: "Adam Admin", role: 200 },
  { handle: "max", fullName: "Max Moderator", role: 300 },
  { handle: "mia", fullName: "Mia Member", role: 400 },
  { handle: "gus", fullName: "Gus Guest", role: 600 },
  { handle: "bot", fullName: "Topic Bot", role: 400, isBot: true },
];

export const SEED_CHANNELS = [
  { name: "general", description: "Everyone's channel" },
  { name: "sandbox", description: "Try things here" },
] as const;

/** Fills an empty realm; returns the seeded users by handle. */
export function seedRealm(realm: Realm): Map<string, SandboxUser> {
  const byHandle = new Map<string, SandboxUser>();
  let ownerId: number | null = null;
  for (const seed of SEED_USERS) {
    const user = realm.addUser({
      email: seed.isBot
        ? `${seed.handle}-bot@${realm.settings.host}`
        : `${seed.handle}@${realm.settings.host}`,
      fullName: seed.fullName,
      password: seed.isBot ? null : newSecret(),
      role: seed.role,
      isBot: seed.isBot ?? false,
      botType: seed.isBot ? 1 : null,
      botOwnerId: seed.isBot ? ownerId : null,
    });
    if (seed.role === 100) ownerId = user.userId;
    byHandle.set(seed.handle, user);
  }
  for (const { name, description } of SEED_CHANNELS) {
    const channel = realm.addChannel(name, description);
    for (const user of byHandle.values()) realm.subscribe(channel, user.userId);
  }
  return byHandle;
}
