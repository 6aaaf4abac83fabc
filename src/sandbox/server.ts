// startSandbox: the embedded chat server, a request handler mounted on a loopback port.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ManualClock, systemClock, type Clock } from "./clock.js";
import { randomBytes } from "node:crypto";
import { handleControl, isLoopback } from "./control.js";
import { FaultInjector } from "./faults.js";
import { createRequestHandler, type RequestHandler } from "./handler.js";
import { RequestRateLimiter, type RateLimitOptions } from "./ratelimit.js";
import { QueueRegistry } from "./queues.js";
import { DEFAULT_SETTINGS, Realm } from "./realm.js";
import type { RealmSettings } from "./model.js";
import { routes } from "./routes/index.js";
import { seedRealm, type SeedBot } from "./seed.js";

export interface SandboxOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /**
   * Interface to listen on; loopback by default. On any other interface the `/sandbox/*` control
   * routes require `Authorization: Bearer <controlToken>`; the token is printed on stderr.
   */
  host?: string;
  /** The control token to require (default: a random one, only when not on loopback). */
  controlToken?: string;
  /** Seconds a long-poll waits before a heartbeat. Default 50 (real servers: about 60). */
  heartbeatSeconds?: number;
  /** Seconds of not polling after which a queue is collected. Default 600. */
  queueIdleTimeoutSeconds?: number;
  /** The realm's time; pass a `ManualClock` to move time (scheduled messages, queue expiry) in tests. */
  clock?: Clock;
  settings?: Partial<RealmSettings>;
  /** Per-user rate limits; off unless given (real servers: 200 requests per 60 s). */
  rateLimit?: RateLimitOptions;
  /** The seeded bot account's name (default `Topic Bot`) and email (default `bot-bot@<host>`). */
  bot?: SeedBot;
}

/** A seeded account, as printed by `bot sandbox --json`. */
export interface SandboxAccount {
  handle: string;
  userId: number;
  email: string;
  apiKey: string;
  password: string | null;
  fullName: string;
  role: number;
  isBot: boolean;
}

export interface Sandbox {
  /** Server root, e.g. `http://127.0.0.1:40123`; the API is under `/api/v1`. */
  url: string;
  realm: Realm;
  /** Seeded accounts in seed order. */
  users: SandboxAccount[];
  /** The seeded account with this handle (`olivia`, `adam`, `max`, `mia`, `gus`, `bot`). */
  user(handle: string): SandboxAccount;
  /** The bot account the runtime logs in as. */
  bot: SandboxAccount;
  handler: RequestHandler;
  /** Fault injection: `sandbox.faults.add({ route: "GET /events", status: 502 })`. Also at `/sandbox/faults`. */
  faults: FaultInjector;
  clock: Clock;
  /** Present when `rateLimit` was given. */
  rateLimiter?: RequestRateLimiter;
  /** The token the `/sandbox/*` control routes require, or null when they need none (loopback). */
  controlToken: string | null;
  /** Makes queues vanish as if collected (by ID, by owner, or all); their next poll gets `BAD_EVENT_QUEUE_ID`. */
  expireQueues(filter?: { queueId?: string; userId?: number }): string[];
  close(): Promise<void>;
}

/**
 * Starts the embedded sandbox server on loopback.
 *
 * @example
 * const sandbox = await startSandbox();
 * console.log(sandbox.url, sandbox.bot.apiKey);
 * await sandbox.close();
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.clock ?? systemClock;
  const queues = new QueueRegistry(
    {
      heartbeatSeconds: options.heartbeatSeconds ?? 50,
      idleTimeoutSeconds: options.queueIdleTimeoutSeconds ?? 600,
    },
    () => clock.now(),
  );
  const realm = new Realm({ ...DEFAULT_SETTINGS, ...options.settings }, clock, queues);
  const seeded = seedRealm(realm, options.bot);
  // With a manual clock, moving time collects idle queues at once.
  const stopSweeping =
    clock instanceof ManualClock ? clock.onChange(() => queues.sweep()) : undefined;
  const faults = new FaultInjector();
  const rateLimiter = options.rateLimit
    ? new RequestRateLimiter(options.rateLimit, () => clock.now())
    : undefined;
  const expireQueues = (filter: { queueId?: string; userId?: number } = {}): string[] =>
    queues
      .all()
      .filter(
        (q) =>
          (filter.queueId === undefined || q.id === filter.queueId) &&
          (filter.userId === undefined || q.userId === filter.userId),
      )
      .map((q) => q.id)
      .filter((id) => queues.expire(id));
  const listenHost = options.host ?? "127.0.0.1";
  const controlToken =
    options.controlToken ?? (isLoopback(listenHost) ? undefined : randomBytes(24).toString("hex"));
  const handler = createRequestHandler({
    realm,
    routes,
    rateLimiter,
    intercept: (req, res, endpoint) => faults.apply(req, res, endpoint),
    extra: (req, res, url) =>
      handleControl({ faults, queues, clock, expireQueues, token: controlToken }, req, res, url),
    onError: (error) => console.error("sandbox: unexpected error", error),
  });

  const server: Server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, listenHost, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  const users: SandboxAccount[] = [...seeded].map(([handle, u]) => ({
    handle,
    userId: u.userId,
    email: u.email,
    apiKey: u.apiKey,
    password: u.password,
    fullName: u.fullName,
    role: u.role,
    isBot: u.isBot,
  }));
  const user = (handle: string): SandboxAccount => {
    const found = users.find((u) => u.handle === handle);
    if (!found)
      throw new Error(
        `no seeded sandbox user "${handle}"; known: ${users.map((u) => u.handle).join(", ")}`,
      );
    return found;
  };

  if (controlToken !== undefined && options.controlToken === undefined)
    process.stderr.write(
      `sandbox: listening on ${listenHost}, not loopback: the /sandbox/* control routes need "Authorization: Bearer ${controlToken}"\n`,
    );
  return {
    url: `http://${host}:${address.port}`,
    realm,
    users,
    user,
    bot: user("bot"),
    handler,
    faults,
    clock,
    rateLimiter,
    expireQueues,
    controlToken: controlToken ?? null,
    async close() {
      queues.close();
      realm.scheduler.close();
      stopSweeping?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
