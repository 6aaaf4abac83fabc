// What a bot asks POST /register for: the server state it reads before handling its first message.

/**
 * The state a bot fetches at registration (`fetch_event_types`), whether one process or a cluster
 * registers: `realm` (limits, feature level, the guest access setting) and `realm_user_groups`
 * (to resolve the guest access setting's group to its name). Not `realm_user`: the whole user list
 * grows with the organization (17 MB at 50,000 users) while a bot meets few of them; the directory
 * fetches users one by one as it needs them, and the queue's `realm_user` events (delivered
 * whatever is fetched) keep them current.
 */
export const BOT_FETCH_EVENT_TYPES: readonly string[] = ["realm", "realm_user_groups"];
