// The realm's user access setting for guests (`can_access_all_users_group`), learned from POST /register and kept current from realm events.

/** A group setting's value: a group ID, or (feature level 283+) an anonymous group. */
type GroupSetting = number | { direct_members?: unknown; direct_subgroups?: unknown };

const asSetting = (value: unknown): GroupSetting | undefined =>
  typeof value === "number" || (typeof value === "object" && value !== null)
    ? (value as GroupSetting)
    : undefined;

/**
 * Whether guests may see every user. The server's default (`role:everyone`) lets them; any other
 * group limits a guest to themselves, bots, users sharing a channel and DM partners. The bot
 * answers "yes" only when it can resolve the setting to `role:everyone`: an unknown setting, a
 * custom or anonymous group, or a group ID it has no name for, is "no" (the strict rule).
 */
export class UserAccessSetting {
  #setting: GroupSetting | undefined;
  readonly #groupNames = new Map<number, string>();

  /** Reads `realm_can_access_all_users_group` and `realm_user_groups` from a register response. */
  learn(state: Record<string, unknown>): void {
    this.#setting = asSetting(state.realm_can_access_all_users_group);
    this.#groupNames.clear();
    const groups = state.realm_user_groups;
    if (Array.isArray(groups))
      for (const g of groups as { id?: unknown; name?: unknown }[])
        if (typeof g.id === "number" && typeof g.name === "string")
          this.#groupNames.set(g.id, g.name);
  }

  /** Applies a `realm` `update_dict` event that changes the setting. */
  onRealmEvent(event: { op?: unknown; data?: unknown }): void {
    if (event.op !== "update_dict" || typeof event.data !== "object" || event.data === null) return;
    const data = event.data as Record<string, unknown>;
    if ("can_access_all_users_group" in data)
      this.#setting = asSetting(data.can_access_all_users_group);
  }

  /** Whether the realm lets guests see everyone (see the class comment for when the bot can tell). */
  guestsSeeEveryone(): boolean {
    const s = this.#setting;
    if (typeof s === "number") return this.#groupNames.get(s) === "role:everyone";
    if (s === undefined) return false;
    // An anonymous group equal to exactly the everyone group.
    const members = Array.isArray(s.direct_members) ? s.direct_members : [];
    const subgroups = Array.isArray(s.direct_subgroups) ? s.direct_subgroups : [];
    return (
      members.length === 0 &&
      subgroups.length === 1 &&
      this.#groupNames.get(subgroups[0] as number) === "role:everyone"
    );
  }
}

/** Each client's realm setting, so `canUserAccessUser(api, …)` follows the realm the client talks to. */
const settingOfClient = new WeakMap<object, () => boolean>();

/** Records how `api`'s realm treats guests (the bot calls this for its own client). */
export function trackUserAccess(api: object, guestsSeeEveryone: () => boolean): void {
  settingOfClient.set(api, guestsSeeEveryone);
}

/** Whether `api`'s realm lets guests see everyone, as tracked; false (strict) when unknown. */
export function guestsSeeEveryoneOn(api: object): boolean {
  return settingOfClient.get(api)?.() ?? false;
}
