// What the server can do, by feature level: the table `bot check` prints and actions consult before calling.

/** One capability: the action or feature, the feature level it needs, and the endpoint behind it. */
export interface Capability {
  /** The lowest `zulip_feature_level` that supports it. */
  level: number;
  endpoint: string;
  description: string;
}

/**
 * Every action (and runtime feature) that depends on the server's feature level.
 * Levels come from the API changelog (`spec/api.md`, Versioning) and the published OpenAPI description.
 */
export const CAPABILITIES = {
  reply: { level: 0, endpoint: "POST /messages", description: "send messages and replies" },
  send: { level: 0, endpoint: "POST /messages", description: "send to any channel or users" },
  directType: {
    level: 174,
    endpoint: "POST /messages",
    description: '`type: "direct"` (older servers get `private`)',
  },
  react: {
    level: 0,
    endpoint: "POST /messages/{message_id}/reactions",
    description: "add an emoji reaction",
  },
  upload: { level: 0, endpoint: "POST /user_uploads", description: "upload a file" },
  markTopicRead: {
    level: 0,
    endpoint: "POST /mark_topic_as_read",
    description: "mark a topic as read",
  },
  flags: {
    level: 155,
    endpoint: "POST /messages/flags/narrow",
    description: "change message flags over a narrow",
  },
  schedule: {
    level: 173,
    endpoint: "POST /scheduled_messages",
    description: "schedule a message",
  },
  report: {
    level: 382,
    endpoint: "POST /messages/{message_id}/report",
    description: "report a message to moderators",
  },
  usersById: {
    level: 384,
    endpoint: "GET /users",
    description: "look up single users with `user_ids` (role checks; older servers fetch all)",
  },
} as const satisfies Record<string, Capability>;

export type CapabilityName = keyof typeof CAPABILITIES;

/** An action the connected server's feature level does not support. */
export class CapabilityError extends Error {
  override readonly name = "CapabilityError";
  /** Stable code for branching. */
  readonly code = "UNSUPPORTED_BY_SERVER";
  readonly capability: CapabilityName;
  readonly needed: number;
  readonly serverLevel: number;

  constructor(capability: CapabilityName, serverLevel: number) {
    const { level, endpoint } = CAPABILITIES[capability];
    super(
      `${capability} needs server feature level ${level} or later (${endpoint}); this server is at level ${serverLevel}`,
    );
    this.capability = capability;
    this.needed = level;
    this.serverLevel = serverLevel;
  }
}

/** Whether a server at `level` has `capability`; an unknown level is assumed current. */
export function supports(capability: CapabilityName, level: number | undefined): boolean {
  return level === undefined || level >= CAPABILITIES[capability].level;
}

/** Throws CapabilityError when a server at `level` lacks `capability`. */
export function requireCapability(capability: CapabilityName, level: number | undefined): void {
  if (!supports(capability, level)) throw new CapabilityError(capability, level!);
}

/**
 * The capability table for a server at `level`, for `bot check`.
 *
 * @example
 * for (const c of capabilitiesAt(300)) console.log(c.available ? "yes" : "no ", c.name, c.level);
 */
export function capabilitiesAt(
  level: number | undefined,
): (Capability & { name: CapabilityName; available: boolean })[] {
  return (Object.entries(CAPABILITIES) as [CapabilityName, Capability][]).map(([name, c]) => ({
    name,
    ...c,
    available: supports(name, level),
  }));
}
