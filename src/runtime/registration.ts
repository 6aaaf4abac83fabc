// What a bot asks POST /register for: the server state it reads before handling its first message.

/**
 * The state a bot fetches at registration (`fetch_event_types`), whether one process or a cluster
 * registers: `realm` (limits, feature level, the guest access setting), `realm_user` (the user
 * directory mentions and access are checked against) and `realm_user_groups` (to resolve the
 * guest access setting's group to its name).
 */
export const BOT_FETCH_EVENT_TYPES: readonly string[] = [
  "realm",
  "realm_user",
  "realm_user_groups",
];
