// The bot's directory of the server's users, kept current by the realm's guest access setting and the queue's realm events.
import type { EventEmitter } from "eventemitter3";
import type { ApiClient } from "../client/client.js";
import type { RegisterParams, Registration } from "../api/events.js";
import { Directory, type RealmUserEvent } from "../context/directory.js";
import { trackUserAccess, UserAccessSetting } from "../context/userAccess.js";

/**
 * The server's users, kept by the realm's guest access setting (re-read from each new
 * registration, then kept by realm events) and, while the queue lasts, by its `realm_user`
 * events when `ownQueue` (a queue of our own registered for them; a cluster worker's events come
 * from the leader, without them).
 *
 * @example
 * const directory = realmDirectory({ api, bus, register, ownQueue: true, now, registration });
 */
export function realmDirectory(options: {
  api: ApiClient;
  bus: EventEmitter;
  register: RegisterParams;
  ownQueue: boolean;
  now: () => number;
  registration: () => Registration | undefined;
}): Directory {
  const { api, bus, register, registration } = options;
  const userAccess = new UserAccessSetting();
  let learnedFrom: Registration | undefined;
  const currentUserAccess = (): UserAccessSetting => {
    const current = registration();
    if (current && current !== learnedFrom) userAccess.learn((learnedFrom = current));
    return userAccess;
  };
  const realmUserEvents =
    options.ownQueue &&
    (register.event_types === undefined || register.event_types.includes("realm_user"));
  const directory = new Directory(api, {
    now: options.now,
    guestsSeeEveryone: () => currentUserAccess().guestsSeeEveryone(),
    keptBy: () => (realmUserEvents ? registration() : undefined),
  });
  trackUserAccess(api, () => currentUserAccess().guestsSeeEveryone());
  bus.on("realm", (event: { op?: unknown; data?: unknown }) =>
    currentUserAccess().onRealmEvent(event),
  );
  bus.on("realm_user", (event: RealmUserEvent) => directory.onRealmUser(event));
  return directory;
}
