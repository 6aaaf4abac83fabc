// Contract-suite server factories: the sandbox always, a real server when TOPICBOT_CONTRACT_* is set.
import { describe } from "vitest";
import { request } from "undici";
import { createClient, type ApiClient } from "topicbot/client";
import { startSandbox, type Sandbox, type SandboxOptions } from "topicbot/sandbox";

export interface ContractServer {
  name: string;
  /** The embedded sandbox, when that is what runs; tests of sandbox-only set-up check for it. */
  sandbox?: Sandbox;
  /** A client logged in as the main account (the bot on the sandbox). */
  client: ApiClient;
  /** A client logged in as another seeded account (sandbox only). */
  clientFor(handle: string): ApiClient;
  /** A request bypassing the client's validation, to see the server's own errors. */
  raw(method: string, path: string, fields?: Record<string, string>): Promise<RawAnswer>;
  close(): Promise<void>;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

async function rawRequest(
  site: string,
  email: string,
  apiKey: string,
  method: string,
  path: string,
  fields: Record<string, string> = {},
): Promise<RawAnswer> {
  const form = new URLSearchParams(fields).toString();
  const query = method === "GET" && form ? `?${form}` : "";
  const res = await request(`${site}/api/v1${path}${query}`, {
    method: method as "GET",
    headers: {
      authorization: `Basic ${Buffer.from(`${email}:${apiKey}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: method === "GET" ? undefined : form,
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: (await res.body.json()) as Record<string, unknown>,
  };
}

export type ServerFactory = (options?: SandboxOptions) => Promise<ContractServer>;

const sandboxFactory: ServerFactory = async (options) => {
  const sandbox = await startSandbox({ heartbeatSeconds: 0.2, ...options });
  const clients: ApiClient[] = [];
  const clientFor = (handle: string): ApiClient => {
    const account = sandbox.user(handle);
    const client = createClient({
      site: sandbox.url,
      email: account.email,
      apiKey: account.apiKey,
      retry: { baseMs: 5, capMs: 20 },
    });
    clients.push(client);
    return client;
  };
  return {
    name: "sandbox",
    sandbox,
    client: clientFor("bot"),
    clientFor,
    raw: (method, path, fields) =>
      rawRequest(sandbox.url, sandbox.bot.email, sandbox.bot.apiKey, method, path, fields),
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await sandbox.close();
    },
  };
};

/** A real server from the environment; sandbox-only tests skip themselves on it. */
function realFactory(env: NodeJS.ProcessEnv): ServerFactory | undefined {
  const site = env.TOPICBOT_CONTRACT_SITE;
  const email = env.TOPICBOT_CONTRACT_EMAIL;
  const apiKey = env.TOPICBOT_CONTRACT_API_KEY;
  if (!site || !email || !apiKey) return undefined;
  return async () => {
    const client = createClient({ site, email, apiKey });
    return {
      name: "real server",
      client,
      clientFor() {
        throw new Error("only the sandbox has seeded accounts");
      },
      raw: (method, path, fields) => rawRequest(site, email, apiKey, method, path, fields),
      close: () => client.close(),
    };
  };
}

/** Every server the contract suite runs against, by name. */
export function contractServers(env: NodeJS.ProcessEnv = process.env): [string, ServerFactory][] {
  const real = realFactory(env);
  return [
    ["sandbox", sandboxFactory],
    ...(real ? [["real server", real] as [string, ServerFactory]] : []),
  ];
}

/** `describe` once per contract server. */
export function describeContract(
  title: string,
  body: (factory: ServerFactory, name: string) => void,
): void {
  for (const [name, factory] of contractServers())
    describe(`${title} [${name}]`, () => body(factory, name));
}

/** The promise's rejection, for asserting on ApiError fields. */
export async function failure(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** The channel contract tests post to: `general` on the sandbox, TOPICBOT_CONTRACT_CHANNEL elsewhere. */
export const CHANNEL = process.env.TOPICBOT_CONTRACT_CHANNEL ?? "general";

/** Registers a queue and returns a function that drains its events (non-blocking). */
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
