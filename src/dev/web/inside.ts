// A snapshot of the bot's insides for the console: plugin storage, open questions, scheduled messages, cron jobs.
import type { Bot } from "../../bot/bot.js";
import type { KeyValueStore } from "../../state/key-value/store.js";
import type { Sandbox } from "../../sandbox/server.js";
import { followPlace, Follows, type FollowNames } from "../../context/follows.js";

/** One namespace of the store, its keys and values. */
export interface NamespaceView {
  name: string;
  entries: { key: string; value: unknown }[];
}

export interface InsideView {
  /** Each plugin's storage namespace, then each plugin's sessions. */
  storage: NamespaceView[];
  /** Open `ctx.ask` questions, as the runtime stores them. */
  questions: { key: string; value: unknown }[];
  /** The bot's scheduled messages (sandbox only: `undefined` on a real server). */
  scheduled?: { id: number; where: string; content: string; deliverAt: number }[];
  cron: { name: string; expression: string; nextRun?: number; runs: number; running: boolean }[];
  /** Conversations plugins follow (`ctx.follow`), as the bot's storage holds them. */
  follows: FollowView[];
}

export interface FollowView {
  /** `#general > design` or `DM with …`. */
  where: string;
  plugin: string;
  idleMinutes: number;
  /** Epoch ms of the last message there. */
  lastActive: number;
}

async function entries(store: KeyValueStore): Promise<{ key: string; value: unknown }[]> {
  const keys = await store.list();
  return Promise.all(keys.map(async (key) => ({ key, value: await store.get(key) })));
}

/**
 * Reads what the bot holds now. `plugins` names the namespaces to show (each plugin's own, as
 * `bot.storage` gives it, and its sessions).
 */
export async function readInside(
  storage: KeyValueStore,
  plugins: readonly string[],
  bot: Bot | undefined,
  sandbox: Sandbox | undefined,
  /** Channel and user names, asked for only when something is followed. */
  names: () => Promise<FollowNames>,
): Promise<InsideView> {
  const followed = await new Follows(storage.namespace("topicbot:follows")).list();
  const named = followed.length > 0 ? await names() : undefined;
  const storageViews: NamespaceView[] = [];
  const sessions = storage.namespace("topicbot:sessions");
  for (const name of plugins) {
    storageViews.push({ name, entries: await entries(storage.namespace(name)) });
    const own = await entries(sessions.namespace(name));
    if (own.length > 0) storageViews.push({ name: `${name} (sessions)`, entries: own });
  }
  const botId = sandbox?.bot.userId;
  const realm = sandbox?.realm;
  return {
    storage: storageViews,
    questions: await entries(storage.namespace("topicbot:questions")),
    scheduled: realm
      ? [...realm.scheduler.pending.values()]
          .filter((s) => s.senderId === botId)
          .sort((a, b) => a.deliverAt - b.deliverAt)
          .map((s) => ({
            id: s.id,
            where:
              s.kind === "stream"
                ? `#${realm.channels.get(s.streamId!)?.name ?? s.streamId} > ${s.topic}`
                : `DM ${s.recipients.map((id) => realm.users.get(id)?.fullName ?? id).join(", ")}`,
            content: s.content,
            deliverAt: s.deliverAt * 1000,
          }))
      : undefined,
    cron: (bot?.scheduler.jobs() ?? []).map((j) => ({
      name: j.name,
      expression: j.expression,
      nextRun: j.nextRun()?.getTime(),
      runs: j.runs,
      running: j.running,
    })),
    follows: followed.map((f) => ({
      where: followPlace(f.conversation, named!),
      plugin: f.plugin,
      idleMinutes: Math.round(f.idleMs / 60_000),
      lastActive: f.lastActive,
    })),
  };
}
