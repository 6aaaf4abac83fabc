import { afterEach, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { subscribeToChannels } from "../../src/cli/subscribe.js";
import { silentLogger } from "../../src/log/logger.js";

describe("subscribeToChannels against the sandbox", () => {
  let client: ApiClient | undefined;
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await client?.close();
    await sandbox?.close();
  });

  async function botClient(): Promise<{ sandbox: Sandbox; client: ApiClient }> {
    sandbox = await startSandbox({ heartbeatSeconds: 10 });
    client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    });
    return { sandbox, client };
  }

  it("subscribes to the configured channels, reporting the new, the known and the refused", async () => {
    const { sandbox, client } = await botClient();
    const owner = sandbox.realm.users.get(sandbox.user("olivia").userId)!;
    const secret = sandbox.realm.addChannel("secret", "", true);
    sandbox.realm.subscribe(secret, owner.userId);
    const result = await subscribeToChannels(
      client,
      ["general", "standups", "secret"],
      silentLogger(),
    );
    expect(result).toEqual({
      subscribed: ["standups"],
      alreadySubscribed: ["general"],
      unauthorized: ["secret"],
    });
    const { subscriptions } = await client.subscriptions.list();
    expect(subscriptions.map((s) => s.name).sort()).toEqual(["general", "sandbox", "standups"]);
  });

  it("names the channels and the server's error when subscribing is refused", async () => {
    const { sandbox, client } = await botClient();
    sandbox.faults.add({ route: "POST /users/me/subscriptions", status: 400, code: "BAD_REQUEST" });
    await expect(subscribeToChannels(client, ["ok", "bad"], silentLogger())).rejects.toThrow(
      /could not subscribe to the configured channels \(ok, bad\): POST \/users\/me\/subscriptions failed with HTTP 400 BAD_REQUEST/,
    );
  });

  it("sends nothing when no channels are configured", async () => {
    const { client } = await botClient();
    expect(await subscribeToChannels(client, [], silentLogger())).toEqual({
      subscribed: [],
      alreadySubscribed: [],
      unauthorized: [],
    });
    expect((await client.subscriptions.list()).subscriptions).toHaveLength(2);
  });
});
