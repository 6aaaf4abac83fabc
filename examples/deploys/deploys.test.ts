import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualSchedulerClock, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { sandboxBot, until, waitForMessage } from "../../test/helpers/bot.js";
import deploys from "./index.js";

const TOKEN = "deploy-token-1234";

describe("the deploys example: a webhook and a cron job", () => {
  let sandbox: Sandbox;
  let bot: Bot;
  // Monday 6 January 2025, 17:59 UTC.
  const clock = new ManualSchedulerClock(Date.parse("2025-01-06T17:59:00Z"));

  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 10 });
    sandbox.realm.addChannel("deploys");
    bot = sandboxBot(sandbox, {
      plugins: [{ plugin: deploys, settings: { token: TOKEN } }],
      http: { port: 0 },
      schedulerClock: clock,
    });
    await bot.start();
  });
  afterAll(async () => {
    await bot.stop();
    await sandbox.close();
  });

  const deploy = (body: object, token = TOKEN) =>
    fetch(`${bot.webhookUrl}/hooks/deploy`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-webhook-token": token },
      body: JSON.stringify(body),
    });

  it("announces a deployment POSTed with the token; a wrong token gets 401", async () => {
    const before = sandbox.realm.messages.length;
    expect((await deploy({ service: "api", version: "v1" }, "wrong-token")).status).toBe(401);
    expect(sandbox.realm.messages.length).toBe(before);
    expect((await deploy({ service: "api", version: "v2.3.0" })).status).toBe(200);
    expect((await deploy({ service: "web", version: "v9" })).status).toBe(200);
    const posted = sandbox.realm.messages.slice(before).map((m) => [m.topic, m.content]);
    expect(posted).toEqual([
      ["api", "Deployed **v2.3.0**"],
      ["web", "Deployed **v9**"],
    ]);
  });

  it("sums the day up at 18:00 and starts over", async () => {
    const before = sandbox.realm.messages.length;
    await clock.advance(60_000);
    const summary = await waitForMessage(sandbox, before, (m) => m.topic === "summary");
    expect(summary.content).toBe("Deployed today:\n* api v2.3.0\n* web v9");
    await until(() => bot.scheduler.jobs().every((j) => !j.running), "the job to end");
    expect(await bot.storage.namespace("deploys").get("today")).toBeUndefined();
  });
});
