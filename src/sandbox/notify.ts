// Sending non-message events to users' event queues, each event built for the user who receives it.
import type { Realm } from "./realm.js";
import type { SandboxUser } from "./model.js";

type Event = Record<string, unknown> & { type: string };

/**
 * Pushes an event to every queue of the given users. `build` may tailor the event to the
 * receiver (for example what email address they may see) or return undefined to skip them.
 */
export function notifyUsers(
  realm: Realm,
  userIds: Iterable<number>,
  build: (receiver: SandboxUser) => Event | undefined,
): void {
  const wanted = new Set(userIds);
  for (const queue of realm.queues.all()) {
    if (!wanted.has(queue.userId)) continue;
    const receiver = realm.users.get(queue.userId);
    if (!receiver) continue;
    const event = build(receiver);
    if (event) queue.push(event);
  }
}

/**
 * Pushes an event to every queue of an active user (a realm-wide event): one pass over the
 * queues, not a list of the organization's users per event.
 */
export function notifyActiveUsers(
  realm: Realm,
  build: (receiver: SandboxUser) => Event | undefined,
): void {
  for (const queue of realm.queues.all()) {
    const receiver = realm.users.get(queue.userId);
    if (!receiver?.isActive) continue;
    const event = build(receiver);
    if (event) queue.push(event);
  }
}

/** IDs of every active user: the audience of realm-wide events. */
export const activeUserIds = (realm: Realm): number[] =>
  [...realm.users.values()].filter((u) => u.isActive).map((u) => u.userId);
