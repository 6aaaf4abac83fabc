// The contract suite's servers: one factory abstraction, the sandbox always and a real server from TOPICBOT_CONTRACT_*.
import { afterAll, beforeAll, describe, expect, type TestContext } from "vitest";
import { ApiError, createClient, type ApiClient } from "topicbot/client";
import { startSandbox, type Sandbox, type SandboxOptions } from "topicbot/sandbox";

/** The accounts a contract test may speak as; the sandbox seeds one of each. */
export type ContractRole = "owner" | "admin" | "moderator" | "member" | "guest" | "bot";

export interface ContractAccount {
  email: string;
  apiKey: string;
  password?: string | null;
}

/** A running server the contract tests talk to over HTTP. */
export interface ContractServer {
  name: string;
  site: string;
  /** Present only for the sandbox: tests that arrange state or inject faults use it. */
  sandbox?: Sandbox;
  /** Whether tests may change the realm (create users, change roles and defaults). */
  writable: boolean;
  /** The role of the main account (the bot on the sandbox, TOPICBOT_CONTRACT_ROLE elsewhere). */
  main: ContractRole;
  account(role: ContractRole): ContractAccount | undefined;
  /** The client of a role's account (the main account by default); one per role, closed with the server. */
  client(role?: ContractRole): ApiClient;
  close(): Promise<void>;
}

/** Starts one kind of server; `options` apply to the sandbox only (a real server is as it is). */
export interface ContractServerFactory {
  name: string;
  start(options?: SandboxOptions): Promise<ContractServer>;
}

/** The seeded sandbox account behind each role. */
export const SANDBOX_HANDLES: Readonly<Record<ContractRole, string>> = {
  owner: "olivia",
  admin: "adam",
  moderator: "max",
  member: "mia",
  guest: "gus",
  bot: "bot",
};

function serverOf(init: {
  name: string;
  site: string;
  main: ContractRole;
  accounts: Partial<Record<ContractRole, ContractAccount>>;
  writable: boolean;
  sandbox?: Sandbox;
  close?: () => Promise<void>;
}): ContractServer {
  const clients = new Map<ContractRole, ApiClient>();
  return {
    name: init.name,
    site: init.site,
    sandbox: init.sandbox,
    writable: init.writable,
    main: init.main,
    account: (role) => init.accounts[role],
    client(role = init.main) {
      let client = clients.get(role);
      if (!client) {
        const account = init.accounts[role];
        if (!account) throw new Error(`${init.name} has no ${role} account; call need() first`);
        client = createClient({
          site: init.site,
          email: account.email,
          apiKey: account.apiKey,
          retry: { baseMs: 5, capMs: 20 },
        });
        clients.set(role, client);
      }
      return client;
    },
    async close() {
      await Promise.all([...clients.values()].map((c) => c.close()));
      await init.close?.();
    },
  };
}

/** The embedded sandbox, always available; the main account is the seeded bot. */
export const sandboxServer: ContractServerFactory = {
  name: "sandbox",
  async start(options = {}) {
    const sandbox = await startSandbox({ heartbeatSeconds: 0.2, ...options });
    const accounts: Partial<Record<ContractRole, ContractAccount>> = {};
    for (const [role, handle] of Object.entries(SANDBOX_HANDLES)) {
      const a = sandbox.user(handle);
      accounts[role as ContractRole] = { email: a.email, apiKey: a.apiKey, password: a.password };
    }
    return serverOf({
      name: "sandbox",
      site: sandbox.url,
      main: "bot",
      accounts,
      writable: true,
      sandbox,
      close: () => sandbox.close(),
    });
  },
};

/**
 * A real server from the environment: TOPICBOT_CONTRACT_SITE, TOPICBOT_CONTRACT_EMAIL and
 * TOPICBOT_CONTRACT_API_KEY (the main account, of role TOPICBOT_CONTRACT_ROLE, default `admin`),
 * plus optional TOPICBOT_CONTRACT_<ROLE>_EMAIL / _API_KEY for other roles. Tests that change the
 * realm run only with TOPICBOT_CONTRACT_WRITABLE=1.
 */
export function realServer(
  env: NodeJS.ProcessEnv = process.env,
): ContractServerFactory | undefined {
  const site = env.TOPICBOT_CONTRACT_SITE;
  if (!site || !env.TOPICBOT_CONTRACT_EMAIL || !env.TOPICBOT_CONTRACT_API_KEY) return undefined;
  const main = (env.TOPICBOT_CONTRACT_ROLE ?? "admin") as ContractRole;
  if (!(main in SANDBOX_HANDLES))
    throw new Error(
      `TOPICBOT_CONTRACT_ROLE must be one of ${Object.keys(SANDBOX_HANDLES).join(", ")}`,
    );
  const accounts: Partial<Record<ContractRole, ContractAccount>> = {};
  for (const role of Object.keys(SANDBOX_HANDLES) as ContractRole[]) {
    const email = env[`TOPICBOT_CONTRACT_${role.toUpperCase()}_EMAIL`];
    const apiKey = env[`TOPICBOT_CONTRACT_${role.toUpperCase()}_API_KEY`];
    if (email && apiKey) accounts[role] = { email, apiKey };
  }
  accounts[main] = { email: env.TOPICBOT_CONTRACT_EMAIL, apiKey: env.TOPICBOT_CONTRACT_API_KEY };
  const name = `real server ${site}`;
  return {
    name,
    start: async () =>
      serverOf({ name, site, main, accounts, writable: env.TOPICBOT_CONTRACT_WRITABLE === "1" }),
  };
}

/** The servers the contract suite runs against: the sandbox, and a real server when configured. */
export function contractServers(env: NodeJS.ProcessEnv = process.env): ContractServerFactory[] {
  const real = realServer(env);
  return real ? [sandboxServer, real] : [sandboxServer];
}

/**
 * Declares one suite per contract server; the server starts before the suite's own hooks and
 * closes after it. `body` gets a getter for the running server.
 *
 * @example
 * describeContract("GET /users", (server) => {
 *   it("lists", async (ctx) => {
 *     need(ctx, server(), "member");
 *     expect((await server().client("member").users.list()).members.length).toBeGreaterThan(0);
 *   });
 * }, { settings: { enableSpectatorAccess: true } });
 */
export function describeContract(
  title: string,
  body: (server: () => ContractServer) => void,
  options: SandboxOptions = {},
): void {
  for (const factory of contractServers()) {
    describe(`${title} [${factory.name}]`, () => {
      let server: ContractServer | undefined;
      beforeAll(async () => {
        server = await factory.start(options);
      });
      afterAll(async () => {
        await server?.close();
      });
      body(() => {
        if (!server) throw new Error("the contract server has not started");
        return server;
      });
    });
  }
}

/** Skips the test unless the server has accounts of all these roles. */
export function need(ctx: TestContext, server: ContractServer, ...roles: ContractRole[]): void {
  if (!roles.every((r) => server.account(r))) ctx.skip(`needs ${roles.join(", ")} accounts`);
}

/** Skips the test unless it may change the realm. */
export function needWritable(ctx: TestContext, server: ContractServer): void {
  if (!server.writable) ctx.skip("changes the realm; set TOPICBOT_CONTRACT_WRITABLE=1");
}

/** The sandbox behind the server, or a skip (for tests that arrange state or inject faults). */
export function needSandbox(ctx: TestContext, server: ContractServer): Sandbox {
  if (!server.sandbox) ctx.skip("sandbox only");
  return server.sandbox!;
}

/** The channel contract tests post to: `general` on the sandbox, TOPICBOT_CONTRACT_CHANNEL elsewhere. */
export const CHANNEL = process.env.TOPICBOT_CONTRACT_CHANNEL ?? "general";

/** Awaits a call expected to fail and checks its error code (and HTTP status when given). */
export async function expectApiError(
  call: Promise<unknown>,
  code: string,
  status?: number,
): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}, but the call succeeded`).toBeInstanceOf(ApiError);
  const apiError = error as ApiError;
  expect(apiError.code).toBe(code);
  if (status !== undefined) expect(apiError.status).toBe(status);
  return apiError;
}

/** The promise's rejection (any error, not only ApiError), for asserting on its fields. */
export async function failure(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * A request the typed client would refuse to send (it validates first): raw form fields, so the
 * server's own checks are tested. `role` undefined sends no credentials.
 */
export async function rawRequest(
  server: ContractServer,
  role: ContractRole | undefined,
  method: string,
  path: string,
  fields: Record<string, string> = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = {};
  if (role) {
    const account = server.account(role);
    if (!account) throw new Error(`${server.name} has no ${role} account; call need() first`);
    headers.authorization = `Basic ${Buffer.from(`${account.email}:${account.apiKey}`).toString("base64")}`;
  }
  const form = new URLSearchParams(fields).toString();
  const url = `${server.site}/api/v1${path}`;
  const res =
    method === "GET"
      ? await fetch(form ? `${url}?${form}` : url, { headers })
      : await fetch(url, {
          method,
          headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
          body: form,
        });
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: (await res.json()) as Record<string, unknown>,
  };
}

/** Registers a queue and returns a function that drains its events so far (without blocking). */
export async function listen(
  client: ApiClient,
  params: Parameters<ApiClient["events"]["register"]>[0] = {},
): Promise<{ queueId: string; drain(): Promise<Record<string, unknown>[]> }> {
  const reg = await client.events.register(params);
  let last = reg.last_event_id;
  const queueId = reg.queue_id!;
  return {
    queueId,
    async drain() {
      const res = await client.events.get({
        queue_id: queueId,
        last_event_id: last,
        dont_block: true,
      });
      for (const e of res.events) last = Math.max(last, e.id);
      return res.events.filter((e) => e.type !== "heartbeat");
    },
  };
}

/**
 * Registers a queue for `types` as `client`, runs `action`, and answers the events it caused
 * (read without blocking, so no waiting on heartbeats).
 */
export async function eventsDuring(
  client: ApiClient,
  types: string[],
  action: () => Promise<unknown>,
): Promise<Record<string, unknown>[]> {
  const { queue_id } = await client.events.register({ event_types: types });
  try {
    await action();
    const { events } = await client.events.get({
      queue_id: queue_id!,
      last_event_id: -1,
      dont_block: true,
    });
    return events.filter((e) => e.type !== "heartbeat");
  } finally {
    await client.events.deleteQueue({ queue_id: queue_id! });
  }
}
