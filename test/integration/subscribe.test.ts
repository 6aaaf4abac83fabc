import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "topicbot/client";
import { startSandbox } from "topicbot/sandbox";
import { subscribeToChannels } from "../../src/cli/subscribe.js";
import { silentLogger } from "../../src/log/logger.js";

/**
 * The sandbox does not play POST /users/me/subscriptions yet, so this test puts a loopback server
 * in front of it that answers that one endpoint (recording the request) and passes the rest on.
 */
async function frontedSandbox(answer: (body: URLSearchParams) => [number, object]) {
  const sandbox = await startSandbox({ heartbeatSeconds: 10 });
  const requests: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/api/v1/users/me/subscriptions") {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const params = new URLSearchParams(body);
        requests.push(params);
        const [status, payload] = answer(params);
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(payload));
      });
      return;
    }
    sandbox.handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    sandbox,
    url,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sandbox.close();
    },
  };
}

describe("subscribeToChannels", () => {
  let client: ApiClient | undefined;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await client?.close();
    await close?.();
  });

  it("subscribes to the configured channels, reporting the new, the known and the refused", async () => {
    const fronted = await frontedSandbox((body) => {
      const names = (JSON.parse(body.get("subscriptions")!) as { name: string }[]).map(
        (s) => s.name,
      );
      return [
        200,
        {
          result: "success",
          msg: "",
          subscribed: { "6": names.filter((n) => n === "standups") },
          already_subscribed: { "6": names.filter((n) => n === "general") },
          unauthorized: names.filter((n) => n === "secret"),
        },
      ];
    });
    close = fronted.close;
    const bot = fronted.sandbox.bot;
    client = createClient({ site: fronted.url, email: bot.email, apiKey: bot.apiKey });
    const result = await subscribeToChannels(
      client,
      ["general", "standups", "secret"],
      silentLogger(),
    );
    expect(result).toEqual({
      subscribed: ["standups"],
      alreadySubscribed: ["general"],
      unauthorized: ["secret"],
      unsupported: false,
    });
    expect(fronted.requests).toHaveLength(1);
    expect(JSON.parse(fronted.requests[0]!.get("subscriptions")!)).toEqual([
      { name: "general" },
      { name: "standups" },
      { name: "secret" },
    ]);
    expect(fronted.requests[0]!.get("authorization_errors_fatal")).toBe("false");
  });

  it("names the channels and the server's error when subscribing is refused", async () => {
    const fronted = await frontedSandbox(() => [
      400,
      { result: "error", msg: "Invalid channel name 'a\u0000b'", code: "BAD_REQUEST" },
    ]);
    close = fronted.close;
    const bot = fronted.sandbox.bot;
    client = createClient({ site: fronted.url, email: bot.email, apiKey: bot.apiKey });
    await expect(subscribeToChannels(client, ["ok", "bad"], silentLogger())).rejects.toThrow(
      /could not subscribe to the configured channels \(ok, bad\): POST \/users\/me\/subscriptions failed with HTTP 400 BAD_REQUEST/,
    );
  });

  it("sends nothing when no channels are configured, and goes on against a server without the endpoint", async () => {
    const sandbox = await startSandbox({ heartbeatSeconds: 10 });
    close = () => sandbox.close();
    client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    });
    expect((await subscribeToChannels(client, [], silentLogger())).unsupported).toBe(false);
    expect((await subscribeToChannels(client, ["general"], silentLogger())).unsupported).toBe(true);
  });
});
