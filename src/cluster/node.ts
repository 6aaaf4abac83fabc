// A cluster node: membership heartbeats, the leader lease, partition locks, and the worker, wired as the bot's event source.
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { ApiClient } from "../client/client.js";
import { sleep } from "../client/backoff.js";
import type { AnyEvent, RegisterParams, Registration } from "../api/events.js";
import type { Message } from "../api/messages.js";
import type { EventSink, EventSource } from "../inbound/event-queue.js";
import { silentLogger, type Logger } from "../log/logger.js";
import type { CatchUpWindow } from "../inbound/catch-up.js";
import type { MessageHandling } from "../bot/options.js";
import { BOT_FETCH_EVENT_TYPES } from "../inbound/registration.js";
import type { ClusterDuties } from "../bot/services.js";
import type { MetricsRegistry } from "../metrics/registry.js";
import { connectRedis } from "../state/key-value/redis.js";
import { isSentinelUrl, redact } from "../state/redis-url.js";
import { RedisDeliveryStore } from "../state/delivery/redis.js";
import type { DeliveryStore } from "../state/delivery/store.js";
import { clusterKeys, type ClusterKeys } from "./keys.js";
import { LeaderTerm } from "./leader.js";
import { assignedTo } from "./partition.js";
import { FencedDeliveryStore } from "./fenced-store.js";
import { withScripts, type Fence, type ScriptedRedis } from "./scripts.js";
import { Reachability, within, type RedisLink } from "./reachability.js";
import { replicaWaitOn, type ReplicaWait } from "./replicas.js";
import { Worker } from "./worker.js";

export interface ClusterNodeOptions {
  /** `redis://host:6379/0`, or a Sentinel set: `redis+sentinel://host:26379,host:26380/mymaster/0`. */
  url: string;
  api: ApiClient;
  /** Registration parameters of the leader's queue (`narrow`, `all_public_streams`). */
  register?: RegisterParams;
  /** Partitions conversations are spread over; every node must use the same number. Default 16. */
  partitions?: number;
  /** This node's name. Default: host name, process ID and a random suffix. */
  node?: string;
  log?: Logger;
  catchUpWindow?: CatchUpWindow | false;
  /** Prefix of every cluster key. Default `topicbot:cluster:`. */
  prefix?: string;
  /** Lease and partition-lock time to live: how long a dead node's share waits. Default 1500 ms. */
  leaseMs?: number;
  /** Heartbeat, renewal and rebalancing period. Default 250 ms. */
  tickMs?: number;
  now?: () => number;
}

/** What `/healthz`, `/metrics` and `bot cluster status` show of one node. */
export interface NodeStatus extends RedisLink {
  node: string;
  role: "leader" | "worker";
  /** The lease holder (`<token>:<node>`), as last seen. */
  leader: string | undefined;
  /** Milliseconds since this node's lease was last renewed (leader only). */
  leaseAgeMs: number | undefined;
  /** Milliseconds this node has led (leader only). */
  termMs: number | undefined;
  members: string[];
  partitions: { partition: number; lag: number; handled: number }[];
}

const DEFAULT_PARTITIONS = 16;
/** How long `start` waits for Redis to answer at all. */
const START_WAIT_MS = 30_000;
/** Messages whose partition is remembered for fencing their late replies. */
const HANDLED_MEMORY = 10_000;

/**
 * One `bot start --cluster` process. Give it to `createBot` as `events`, its `attach` as
 * `attach`, and its `delivery` as `delivery` (the reply guard's fenced store).
 *
 * @example
 * const node = new ClusterNode({ url: "redis://127.0.0.1:6379/0", api });
 * const bot = createBot({ client: api, events: node, attach: node.attach, delivery: node.delivery, plugins });
 */
export class ClusterNode implements EventSource {
  readonly name: string;
  readonly keys: ClusterKeys;
  readonly partitionCount: number;
  readonly redis: ScriptedRedis;
  readonly journal: RedisDeliveryStore;
  /** The delivery store to give `createBot`: the shared reply journal, fenced by partition locks. */
  readonly delivery: DeliveryStore;
  readonly #o: ClusterNodeOptions;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #reader: Redis;
  readonly #broadcastReader: Redis;
  #runtime: MessageHandling | undefined;
  #worker: Worker | undefined;
  #me = 0;
  #members: string[] = [];
  #leaderSeen: string | undefined;
  #term: { term: LeaderTerm; holder: string; since: number; renewedAt: number } | undefined;
  /** Partitions this node holds, each with its lock's value. */
  readonly #held = new Map<number, Fence>();
  readonly #link: Reachability;
  /** Until then, after Redis was away longer than a lease, no partition is taken that was not held. */
  #graceUntil = 0;
  readonly #leaving = new Set<number>();
  #stopping = false;
  #loop: Promise<void> | undefined;
  #broadcastLoop: Promise<void> | undefined;
  readonly #abort = new AbortController();

  constructor(options: ClusterNodeOptions) {
    this.#o = options;
    this.name = options.node ?? `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
    this.keys = clusterKeys(options.prefix);
    this.partitionCount = options.partitions ?? DEFAULT_PARTITIONS;
    this.#log = (options.log ?? silentLogger()).child({ component: "cluster", node: this.name });
    this.#now = options.now ?? Date.now;
    this.#leaseMs = options.leaseMs ?? 1_500;
    this.#sentinel = isSentinelUrl(options.url);
    this.#link = new Reachability({
      waitMs: Math.max(100, Math.floor(this.#leaseMs / 3)),
      now: this.#now,
      onChange: (reachable, awayMs) =>
        reachable
          ? this.#log.warn({ awayMs }, "cluster: Redis reachable again; resuming")
          : this.#log.warn("cluster: Redis unreachable; holding work until it is back"),
    });
    const onError = (error: Error) => this.#redisDown(error);
    this.redis = withScripts(connectRedis(options.url, `topicbot-${this.name}`, onError));
    this.#replicas = replicaWaitOn(this.redis); // counted anew after each reconnection
    this.#reader = connectRedis(options.url, `topicbot-${this.name}-partitions`, onError);
    this.#broadcastReader = connectRedis(options.url, `topicbot-${this.name}-broadcast`, onError);
    this.journal = new RedisDeliveryStore({
      redis: this.redis,
      prefix: `${this.keys.prefix}delivery:`,
    });
    this.delivery = new FencedDeliveryStore({
      redis: this.redis,
      journal: this.journal,
      ttlMs: this.#leaseMs,
      fenceOf: (incomingId) => this.#handledFrom.get(incomingId),
      durable: this.#durable,
      onRetry: (err, attempt) =>
        attempt % 20 === 0 && this.#log.warn({ err }, "cluster: reply intent failed; retrying"),
    });
  }

  /**
   * The partition each recently handled message came from (bounded): its replies are fenced by that
   * partition's lock, also when they come later than the handling (a handler that asked and waited).
   */
  readonly #handledFrom = new Map<number, Fence>();

  /** The `attach` option of `createBot`: receives the bot's message handling. */
  readonly attach = (runtime: MessageHandling): void => {
    this.#runtime = runtime;
  };

  get role(): "leader" | "worker" {
    return this.#term ? "leader" : "worker";
  }

  async start(sink: EventSink): Promise<Registration> {
    if (!this.#runtime) throw new Error("cluster: pass the node's `attach` to createBot");
    // Commands wait for Redis however long it is away; at start, a Redis never reached is an error.
    const agreed = await within(
      this.redis.set(this.keys.partitions, this.partitionCount, "NX", "GET"),
      START_WAIT_MS,
      () =>
        `cluster: Redis at ${redact(this.#o.url)} did not answer within ${START_WAIT_MS / 1000} s`,
    );
    if (agreed !== null && Number(agreed) !== this.partitionCount)
      throw new Error(
        `cluster.partitions is ${this.partitionCount} but the cluster at this Redis runs ${agreed}; use ${agreed} (or delete ${this.keys.partitions} with every node stopped)`,
      );
    const registration = await this.#serverFacts();
    this.#me = (await this.#o.api.users.me()).user_id;
    this.#worker = new Worker({
      redis: this.redis,
      reader: this.#reader,
      keys: this.keys,
      node: this.name,
      log: this.#log,
      ttlMs: this.#leaseMs,
      ready: () => this.#link.ready(),
      handle: (event, _partition, fence) => this.#handle(event, fence),
    });
    this.#broadcastLoop = this.#readBroadcast(sink);
    await this.#tick();
    this.#loop = this.#run();
    this.#log.info(
      { partitions: this.#worker.partitions, role: this.role },
      "cluster: node joined",
    );
    return registration;
  }

  /** Steps down, hands its partitions over (running handlers finish), and leaves the membership. */
  async halt(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#abort.abort();
    await this.#loop;
    await this.#stepDown("stopping");
    await Promise.all([...this.#held.keys()].map((p) => this.#release(p)));
    await this.#worker?.stop();
    await this.redis.zrem(this.keys.members, this.name).catch(() => undefined);
    await this.redis.del(this.keys.member(this.name)).catch(() => undefined);
    await this.#broadcastLoop;
    this.#log.info("cluster: node left");
  }

  async stop(): Promise<void> {
    await this.halt();
    for (const redis of [this.redis, this.#reader, this.#broadcastReader])
      await redis.quit().catch(() => redis.disconnect());
  }

  /** Cluster-wide duties for the bot's services (cron ticks, webhook deliveries) and `/healthz`. */
  duties(): ClusterDuties {
    return {
      claim: async (duty, ttlMs) =>
        (await this.redis.set(this.keys.once(duty), this.name, "PX", ttlMs, "NX")) === "OK",
      health: () => this.status(),
      degraded: () => (this.#link.reachable ? [] : ["redis"]),
    };
  }

  /** Adds this node's gauges (role, partitions, lag per partition, lease age) to a metrics registry. */
  observe(registry: MetricsRegistry): void {
    registry.gauge({
      name: "topicbot_cluster_leader",
      help: "1 while this node leads the cluster",
      collect: () => (this.#term ? 1 : 0),
    });
    registry.gauge({
      name: "topicbot_cluster_partitions_owned",
      help: "Partitions this node consumes",
      collect: () => this.#held.size,
    });
    registry.gauge({
      name: "topicbot_cluster_members",
      help: "Live cluster members this node sees",
      collect: () => this.#members.length,
    });
    registry.gauge({
      name: "topicbot_cluster_lease_age_seconds",
      help: "Seconds since this node last renewed the leader lease (-1 when not leading)",
      collect: () => (this.#term ? (this.#now() - this.#term.renewedAt) / 1000 : -1),
    });
    const lag = registry.gauge<"partition">({
      name: "topicbot_cluster_partition_lag",
      help: "Entries published to a partition this node owns and not yet handled",
      labels: ["partition"],
    });
    this.#onLags = (lags) => {
      for (const [partition, n] of lags) lag.set({ partition: String(partition) }, n);
    };
  }

  /** Sentinel mode: writes a node acts on wait (≤ 500 ms) for a replica, while the primary has one. */
  readonly #replicas: ReplicaWait;
  readonly #sentinel: boolean;

  /** Resolves once a replica has what was just written (Sentinel mode; a no-op otherwise). */
  readonly #durable = async (): Promise<void> => {
    if (this.#sentinel) await this.#replicas.durable();
  };

  #onLags: ((lags: Map<number, number>) => void) | undefined;
  #lags = new Map<number, number>();

  /** Reads the lag (entries not yet acknowledged) of every held partition; once per tick. */
  async #measure(): Promise<void> {
    const held = [...this.#held.keys()];
    const pipeline = this.redis.pipeline();
    for (const p of held) pipeline.xlen(this.keys.partition(p));
    const answers = (await pipeline.exec()) ?? [];
    const lags = new Map<number, number>();
    held.forEach((p, i) => lags.set(p, Number(answers[i]?.[1] ?? 0)));
    for (const p of this.#lags.keys()) if (!lags.has(p)) this.#onLags?.(new Map([[p, 0]]));
    this.#lags = lags;
    this.#onLags?.(lags);
  }

  /** This node's view, for `/healthz` and `/metrics` (lags as of the last heartbeat). */
  status(): NodeStatus {
    const partitions = [...this.#held.keys()].sort((a, b) => a - b);
    const at = this.#now();
    return {
      ...this.#link.link(),
      node: this.name,
      role: this.role,
      leader: this.#leaderSeen,
      leaseAgeMs: this.#term ? at - this.#term.renewedAt : undefined,
      termMs: this.#term ? at - this.#term.since : undefined,
      members: this.#members,
      partitions: partitions.map((partition) => ({
        partition,
        lag: this.#lags.get(partition) ?? 0,
        handled: this.#worker?.handled(partition) ?? 0,
      })),
    };
  }

  async #handle(event: AnyEvent, fence: Fence): Promise<void> {
    const { message, flags } = event as unknown as { message: Message; flags?: string[] };
    this.#handledFrom.delete(message.id);
    this.#handledFrom.set(message.id, fence);
    if (this.#handledFrom.size > HANDLED_MEMORY)
      this.#handledFrom.delete(this.#handledFrom.keys().next().value!);
    this.#runtime!.emit(event);
    await this.#runtime!.handle(message, flags ?? []);
  }

  /** The server's facts (feature level, limits) from a registration that is deleted at once. */
  async #serverFacts(): Promise<Registration> {
    const api = this.#o.api;
    const registration = await api.events.register({
      ...this.#o.register,
      event_types: ["realm"],
      fetch_event_types: [...BOT_FETCH_EVENT_TYPES],
    });
    if (registration.queue_id)
      await api.events.deleteQueue({ queue_id: registration.queue_id }).catch(() => undefined);
    return registration;
  }

  async #run(): Promise<void> {
    const tickMs = this.#o.tickMs ?? 250;
    // A tick stuck on a call that hangs (Redis cut off) still has the node step down in time.
    const watchdog = setInterval(() => {
      if (this.#link.sinceBeatMs > (this.#leaseMs * 2) / 3) this.#link.lost();
      this.#expireLocally();
    }, tickMs);
    try {
      while (!this.#abort.signal.aborted) {
        await sleep(tickMs, this.#abort.signal).catch(() => undefined);
        if (this.#abort.signal.aborted) break;
        await this.#tick().catch((error: unknown) => {
          if (this.#link.reachable)
            this.#log.warn({ err: error }, "cluster: heartbeat failed; retrying");
        });
      }
    } finally {
      clearInterval(watchdog);
    }
  }

  /** One heartbeat: membership, the lease (renew or try to take), and the partition share. */
  async #tick(): Promise<void> {
    const about = JSON.stringify({
      node: this.name,
      role: this.role,
      partitions: [...this.#held.keys()],
      pid: process.pid,
      ...this.#link.link(),
    });
    try {
      const { answer, awayMs } = await this.#link.beat(() =>
        this.redis.heartbeat(
          this.keys.members,
          this.keys.member(this.name),
          this.name,
          this.#leaseMs,
          about,
        ),
      );
      this.#members = answer;
      // Away longer than a lease: the others' heartbeats may have lapsed too. Until they beat again,
      // taking their partitions would move work their owners resume where they were.
      if (awayMs > this.#leaseMs) this.#graceUntil = this.#now() + this.#leaseMs + 250;
    } catch (error) {
      this.#expireLocally();
      throw error;
    }
    await this.#lead();
    const wanted = new Set(assignedTo(this.name, this.#members, this.partitionCount));
    for (const [p, fence] of [...this.#held]) {
      if (this.#leaving.has(p)) continue;
      if (!wanted.has(p)) {
        this.#log.info(
          { partition: p, members: this.#members.length },
          "cluster: handing a partition over",
        );
        void this.#release(p);
        continue;
      }
      if ((await this.#hold(p, fence.holder)) === null) {
        this.#log.warn({ partition: p }, "cluster: lost a partition lock; stopping it");
        if (this.#held.get(p) === fence) this.#held.delete(p);
        void this.#worker!.give(p);
      }
    }
    const taken: number[] = [];
    const grace = this.#now() < this.#graceUntil;
    await Promise.all(
      [...wanted].map(async (p) => {
        if (this.#held.has(p) || grace) return;
        if (this.#worker!.giving(p)) return; // still handing it over: take it on a later tick
        const holder = await this.#hold(p, "");
        if (holder === null) return;
        await this.#durable(); // a take lost in a failover would let the old holder resume
        const fence = {
          lock: this.keys.partitionLock(p),
          last: this.keys.partitionLast(p),
          holder,
        };
        this.#held.set(p, fence);
        await this.#worker!.take(p, fence);
        taken.push(p);
      }),
    );
    await this.#measure();
    if (this.#sentinel) await this.#replicas.recount(); // a replica gone or back since
    if (taken.length > 0)
      this.#log.info(
        { taken, held: [...this.#held.keys()], members: this.#members.length },
        "cluster: took partitions",
      );
  }

  /** Renews the lease if held (stepping down when that fails), else tries to take it. */
  async #lead(): Promise<void> {
    const { redis, keys } = this;
    if (this.#term) {
      if ((await redis.leaseRenew(keys.leader, this.#term.holder, this.#leaseMs)) === 1) {
        this.#term.renewedAt = this.#now();
        this.#leaderSeen = this.#term.holder;
        return;
      }
      await this.#stepDown("lease lost");
    }
    if (this.#stopping) return;
    const token = await redis.leaseAcquire(keys.leader, keys.epoch, this.name, this.#leaseMs);
    if (token === 0) {
      this.#leaderSeen = (await redis.get(keys.leader)) ?? undefined;
      return;
    }
    const holder = `${token}:${this.name}`;
    this.#leaderSeen = holder;
    this.#log.info({ token }, "cluster: leading");
    const term = new LeaderTerm(
      {
        redis,
        keys,
        api: this.#o.api,
        register: {
          fetch_event_types: [...BOT_FETCH_EVENT_TYPES],
          ...this.#o.register,
        },
        partitions: this.partitionCount,
        log: this.#log,
        me: () => this.#me,
        catchUpWindow: this.#o.catchUpWindow,
        now: this.#now,
        onDeposed: () => void this.#stepDown("deposed"),
        durable: this.#durable,
      },
      holder,
    );
    this.#term = { term, holder, since: this.#now(), renewedAt: this.#now() };
  }

  /** Ends the term: polling stops, the queue is deleted, and the lease is freed for the next leader. */
  async #stepDown(why: string): Promise<void> {
    const term = this.#term;
    if (!term) return;
    this.#term = undefined;
    await term.term.end();
    await this.redis.leaseRelease(this.keys.leader, term.holder).catch(() => undefined);
    this.#log.info({ why }, "cluster: stepped down");
  }

  #lastRedisWarning = 0;

  /** Connection errors: logged at most every 5 s (ioredis reconnects by itself). */
  #redisDown(error: Error): void {
    if (this.#now() - this.#lastRedisWarning < 5_000) return;
    this.#lastRedisWarning = this.#now();
    this.#log.warn({ err: error }, "cluster: Redis connection failed; reconnecting");
  }

  /** Without Redis for a whole lease, this node's lease and locks are someone else's now. */
  #expireLocally(): void {
    if (this.#term && this.#now() - this.#term.renewedAt > this.#leaseMs)
      void this.#stepDown("Redis unreachable");
  }

  /** Renews or resumes (`holder`) or takes ('') partition `p`'s lock: its value, or null when not ours. */
  #hold(p: number, holder: string): Promise<string | null> {
    const { keys } = this;
    return this.redis.hold(
      keys.partitionLock(p),
      keys.partitionLast(p),
      this.name,
      holder,
      this.#leaseMs,
    );
  }

  async #release(p: number): Promise<void> {
    if (this.#leaving.has(p)) return;
    this.#leaving.add(p);
    try {
      await this.#worker!.give(p);
      const fence = this.#held.get(p);
      if (fence)
        await this.redis.letGo(fence.lock, fence.last, fence.holder).catch(() => undefined);
    } finally {
      this.#held.delete(p);
      this.#leaving.delete(p);
    }
  }

  /** Non-message events, fanned out to every node: read from the broadcast stream, onto the bus. */
  async #readBroadcast(sink: EventSink): Promise<void> {
    const signal = this.#abort.signal;
    const newest = (await this.#broadcastReader
      .xrevrange(this.keys.broadcast, "+", "-", "COUNT", 1)
      .catch(() => [])) as [string, string[]][];
    let last = newest[0]?.[0] ?? "0-0";
    while (!signal.aborted) {
      try {
        const answer = (await this.#broadcastReader.xread(
          "COUNT",
          100,
          "BLOCK",
          500,
          "STREAMS",
          this.keys.broadcast,
          last,
        )) as [string, [string, string[]][]][] | null;
        const entries = answer?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        last = entries.at(-1)![0];
        const events = entries.map(
          ([, fields]) => JSON.parse(fields[fields.indexOf("e") + 1]!) as AnyEvent,
        );
        await sink(events, signal);
      } catch (error) {
        if (signal.aborted) break;
        this.#log.warn({ err: error }, "cluster: reading broadcast events failed; retrying");
        await sleep(500, signal).catch(() => undefined);
      }
    }
  }
}
