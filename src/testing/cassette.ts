// createTestBot({ cassette }): a recorded incident replayed, answered from the cassette (lockdown) or redriven on the sandbox.
import { readCassette, type Cassette, type CassetteExchange } from "../record/cassette.js";
import { CassetteMissError, LockdownReplayer } from "../record/lockdown.js";
import { postScripted, recordedBot, seedRealm, type SeededRealm } from "../record/seed.js";
import { eventsOf } from "../record/cassette.js";
import type { Realm } from "../sandbox/realm.js";
import type { SandboxUser } from "../sandbox/model.js";

/** `createTestBot({ cassette })`: which cassette, and how it is replayed. */
export interface CassetteOption {
  /** The cassette file, or one read already. */
  from: string | Cassette;
  /**
   * `lockdown` (default): the bot's requests are answered from the cassette in recorded order and
   * its event batches delivered as recorded; a request the cassette does not hold fails the test
   * (at `t.close()`, naming it). `redrive`: the cassette seeds the sandbox (users, channels,
   * history) and `t.cassette.play()` sends its people's messages again, to a live bot.
   */
  mode?: "lockdown" | "redrive";
}

/** `t.cassette`: the replay of a cassette. */
export interface CassettePlayback {
  mode: "lockdown" | "redrive";
  cassette: Cassette;
  /**
   * Lockdown: resolves once every recorded event batch has reached the bot and it has handled
   * the last recorded message. Redrive: sends each recorded message of the people in order,
   * waiting each time until the bot has handled it. Fails after `timeoutMs` (default 30 000).
   */
  play(options?: { timeoutMs?: number }): Promise<void>;
  /** Lockdown: the requests the cassette did not hold, described (`POST /messages content=...`). */
  misses(): string[];
  /** Lockdown: every request the bot sent, described, in order. */
  requests(): string[];
  /** Lockdown: recorded exchanges the bot has not asked for (yet). */
  unserved(): CassetteExchange[];
  /** Redrive: what seeding made of the cassette (ID maps, the script, what was skipped). */
  seeded: SeededRealm | undefined;
}

/** The harness's hooks for a cassette: set up before the bot, played after. */
export interface CassetteSetup {
  cassette: Cassette;
  mode: "lockdown" | "redrive";
  /** The bot's name and email as recorded (the sandbox's bot takes them, so replayed requests match). */
  bot: { fullName?: string; email?: string };
  /** Lockdown: the transport wrapper that answers from the cassette. */
  wrapTransport?: () => LockdownReplayer;
  /** Redrive: seeds the realm, before the bot starts. */
  seed(realm: Realm, bot: SandboxUser): void;
  /** Builds `t.cassette`; `settle(id)` waits until the bot is done with message `id`. */
  playback(
    realm: Realm,
    settle: (id: number, timeoutMs: number) => Promise<void>,
  ): CassettePlayback;
  /** Lockdown: throws the misses (at `t.close()`). */
  check(): void;
}

const bounded = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });

export function setUpCassette(option: CassetteOption): CassetteSetup {
  const cassette = typeof option.from === "string" ? readCassette(option.from) : option.from;
  const mode = option.mode ?? "lockdown";
  const me = recordedBot(cassette);
  const replayer = mode === "lockdown" ? new LockdownReplayer(cassette) : undefined;
  let seeded: SeededRealm | undefined;
  return {
    cassette,
    mode,
    bot: { fullName: me?.fullName, email: me?.email },
    wrapTransport: replayer && (() => replayer),
    seed(realm, bot) {
      if (mode === "redrive") seeded = seedRealm(realm, cassette, bot);
    },
    playback(realm, settle) {
      return {
        mode,
        cassette,
        get seeded() {
          return seeded;
        },
        async play({ timeoutMs = 30_000 } = {}) {
          const deadline = Date.now() + timeoutMs;
          if (replayer) {
            await bounded(
              replayer.eventsDelivered(),
              timeoutMs,
              "cassette lockdown: event batches",
            );
            const ids = cassette.exchanges.flatMap((x) =>
              eventsOf(x).flatMap((e) =>
                e.type === "message" ? [(e.message as { id: number }).id] : [],
              ),
            );
            if (ids.length > 0) await settle(Math.max(...ids), Math.max(1, deadline - Date.now()));
            return;
          }
          for (const m of seeded?.script ?? []) {
            const id = postScripted(realm, m);
            if (id === undefined)
              throw new Error(
                `cassette redrive: cannot send recorded message ${m.recordedId} (no ${m.senderEmail} or #${m.channel ?? "?"} in the sandbox)`,
              );
            seeded!.messageIds.set(m.recordedId, id);
            await settle(id, Math.max(1, deadline - Date.now()));
          }
        },
        misses: () => replayer?.misses.map((m) => m.request) ?? [],
        requests: () => [...(replayer?.requests ?? [])],
        unserved: () => replayer?.unserved() ?? [],
      };
    },
    check() {
      const misses = replayer?.misses ?? [];
      if (misses.length === 0) return;
      const error = new CassetteMissError(
        misses[0]!.request,
        misses.length > 1
          ? `; ${misses.length - 1} more: ${misses
              .slice(1)
              .map((m) => m.request)
              .join("; ")}`
          : "",
      );
      throw error;
    },
  };
}
