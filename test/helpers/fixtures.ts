// Small fixtures several unit tests share: users as the API and the directory describe them, and a message context over memory.
import type { SendParams } from "../../src/api/messages.js";
import type { ApiClient } from "../../src/client/client.js";
import type { ContextServices } from "../../src/context/context.js";
import { Dialogs } from "../../src/context/session.js";
import type { BotAccount } from "../../src/model/account.js";
import { silentLogger } from "../../src/log/logger.js";
import { createMemoryStore } from "../../src/state/key-value/index.js";
import type { ChatUser, Directory } from "../../src/context/directory.js";

/** A user as GET /users (and GET /users/{user_id}) describe one: a member unless `extra` says otherwise. */
export function apiUser(userId: number, extra: Record<string, unknown> = {}) {
  return {
    user_id: userId,
    delivery_email: null,
    email: `u${userId}@example.com`,
    full_name: `User ${userId}`,
    date_joined: "2026-01-01T00:00:00Z",
    is_active: true,
    is_owner: false,
    is_admin: false,
    is_guest: false,
    is_bot: false,
    role: 400,
    timezone: "",
    ...extra,
  };
}

/** The directory's users for the reply guard's tests: a human and another bot. */
export function humanAndBot(human: number, bot: number): ChatUser[] {
  return [human, bot].map((userId) => ({
    userId,
    email: `u${userId}@example.com`,
    fullName: `User ${userId}`,
    role: "member",
    timezone: "",
    isBot: userId === bot,
    isActive: true,
  }));
}

/** A directory that knows `users` (at hand, as after their first message) and no one else. */
export function directoryOf(users: readonly ChatUser[]): Directory {
  const byId = new Map(users.map((u) => [u.userId, u]));
  return {
    known: (id: number) => byId.get(id),
    user: (id: number) => Promise.resolve(byId.get(id)),
  } as unknown as Directory;
}

/**
 * The services of a message context with nothing behind them but memory: what the context would
 * send is pushed to `sent` (answered with IDs 101, 102, ...); `extra` sets or replaces any of them.
 */
export function recordingServices(
  me: BotAccount,
  sent: SendParams[],
  extra: Partial<ContextServices> = {},
): ContextServices {
  return {
    api: {} as ApiClient,
    me,
    log: silentLogger(),
    server: () => ({ featureLevel: 400, maxMessageLength: 10_000 }),
    sendMessage: (params) => {
      sent.push(params);
      return Promise.resolve({ id: 100 + sent.length });
    },
    sessions: createMemoryStore(),
    dialogs: new Dialogs(),
    now: () => 0,
    timeZone: "UTC",
    ...extra,
  };
}
