// Contract-suite servers by role (owner, admin, member, ...): the sandbox always, a real server from TOPICBOT_CONTRACT_*.
import { afterAll, beforeAll, describe, expect, type TestContext } from "vitest";
import { ApiError, createClient, type ApiClient } from "topicbot/client";
import { startSandbox, type Sandbox, type SandboxOptions } from "topicbot/sandbox";

export type ContractRole = "owner" | "admin" | "moderator" | "member" | "guest" | "bot";

export interface ContractAccount {
  email: string;
  apiKey: string;
  password?: string | null;
}

export interface ContractServer {
  name: string;
  site: string;
  /** Present only for the sandbox: tests that need to arrange state or inject faults use it. */
  sandbox?: Sandbox;
  /** Whether tests may change the realm (create users, change roles and defaults). */
  writable: boolean;
  account(role: ContractRole): ContractAccount | undefined;
  /** A client logged in as the role's account; closed with the server. */
  client(role: ContractRole): ApiClient;
  close(): Promise<void>;
}

export interface ContractServerFactory {
  name: string;
  start(): Promise<ContractServer>;
}

const SANDBOX_HANDLES: Record<ContractRole, string> = {
  owner: "olivia",
  admin: "adam",
  moderator: "max",
  member: "mia",
  guest: "gus",
  bot: "bot",
};

function serverOf(
  name: string,
  site: string,
  accounts: Partial<Record<ContractRole, ContractAccount>>,
  extra: { sandbox?: Sandbox; writable: boolean; close?: () => Promise<void> },
): ContractServer {
  const clients: ApiClient[] = [];
  return {
    name,
    site,
    sandbox: extra.sandbox,
    writable: extra.writable,
    account: (role) => accounts[role],
    client(role) {
      const account = accounts[role];
      if (!account) throw new Error(`${name} has no ${role} account; call need() first`);
      const client = createClient({
        site,
        email: account.email,
        apiKey: account.apiKey,
        retry: { maxAttempts: 1 },
      });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await extra.close?.();
    },
  };
}

/** The embedded sandbox, always available. */
export const sandboxServer = (options: SandboxOptions = {}): ContractServerFactory => ({
  name: "sandbox",
  async start() {
    const sandbox = await startSandbox({ heartbeatSeconds: 1, ...options });
    const accounts: Partial<Record<ContractRole, ContractAccount>> = {};
    for (const [role, handle] of Object.entries(SANDBOX_HANDLES)) {
      const a = sandbox.user(handle);
      accounts[role as ContractRole] = { email: a.email, apiKey: a.apiKey, password: a.password };
    }
    return serverOf("sandbox", sandbox.url, accounts, {
      sandbox,
      writable: true,
      close: () => sandbox.close(),
    });
  },
});

/**
 * A real server from the environment: TOPICBOT_CONTRACT_SITE, TOPICBOT_CONTRACT_EMAIL and
 * TOPICBOT_CONTRACT_API_KEY (an account of role TOPICBOT_CONTRACT_ROLE, default `admin`), plus
 * optional TOPICBOT_CONTRACT_<ROLE>_EMAIL / _API_KEY for other roles. Tests that change the realm
 * run only with TOPICBOT_CONTRACT_WRITABLE=1.
 */
export function realServer(
  env: NodeJS.ProcessEnv = process.env,
): ContractServerFactory | undefined {
  const site = env.TOPICBOT_CONTRACT_SITE;
  if (!site || !env.TOPICBOT_CONTRACT_EMAIL || !env.TOPICBOT_CONTRACT_API_KEY) return undefined;
  const accounts: Partial<Record<ContractRole, ContractAccount>> = {};
  const mainRole = (env.TOPICBOT_CONTRACT_ROLE ?? "admin") as ContractRole;
  accounts[mainRole] = {
    email: env.TOPICBOT_CONTRACT_EMAIL,
    apiKey: env.TOPICBOT_CONTRACT_API_KEY,
  };
  for (const role of Object.keys(SANDBOX_HANDLES) as ContractRole[]) {
    const email = env[`TOPICBOT_CONTRACT_${role.toUpperCase()}_EMAIL`];
    const apiKey = env[`TOPICBOT_CONTRACT_${role.toUpperCase()}_API_KEY`];
    if (email && apiKey) accounts[role] = { email, apiKey };
  }
  return {
    name: `real server ${site}`,
    start: async () =>
      serverOf(`real server ${site}`, site, accounts, {
        writable: env.TOPICBOT_CONTRACT_WRITABLE === "1",
      }),
  };
}

/** The servers the contract suite runs against. */
export function contractServers(options: SandboxOptions = {}): ContractServerFactory[] {
  const real = realServer();
  return real ? [sandboxServer(options), real] : [sandboxServer(options)];
}

/**
 * Declares one contract suite per server. `body` gets a getter for the running server.
 *
 * @example
 * describeContract("GET /users", (server) => { it("lists", async () => { ... server().client("member") ... }) });
 */
export function describeContract(
  title: string,
  body: (server: () => ContractServer) => void,
  options: SandboxOptions = {},
): void {
  for (const factory of contractServers(options)) {
    describe(`${title} [${factory.name}]`, () => {
      let server: ContractServer | undefined;
      beforeAll(async () => {
        server = await factory.start();
      });
      afterAll(async () => {
        await server?.close();
      });
      body(() => server!);
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

/**
 * A request the typed client would refuse to send (it validates first): raw form fields, so the
 * server's own checks are tested. Answers the HTTP status and JSON body.
 */
export async function rawRequest(
  server: ContractServer,
  role: ContractRole | undefined,
  method: string,
  path: string,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (role) {
    const account = server.account(role)!;
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
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
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
