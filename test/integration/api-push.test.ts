// Contract: POST /users/me/native_device_token and POST /mobile_push/e2ee/test_notification (push.*).
import { expect, it } from "vitest";
import { createClient } from "topicbot/client";
import { startSandbox } from "topicbot/sandbox";
import { describeContract, expectApiError, needSandbox } from "./contract/servers.js";
import { pushState } from "../../src/sandbox/routes/push.js";

describeContract("Push: device tokens and the E2EE test notification", (server) => {
  const APPID = "org.example.chat";

  it("NO_ACTIVE_PUSH_DEVICE before any device is registered", async (ctx) => {
    needSandbox(ctx, server());
    await expectApiError(
      server().client("member").push.sendE2eeTestNotification(),
      "NO_ACTIVE_PUSH_DEVICE",
      400,
    );
  });

  it("registers a token; the test notification then reaches it", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const client = server().client("member");
    await client.push.addNativeDeviceToken({ token: "a1b2c3d4e5f6", appid: APPID });
    await client.push.addNativeDeviceToken({ token: "a1b2c3d4e5f6", appid: APPID });
    const state = pushState(sandbox.realm);
    const devices = state.devices.get(sandbox.user("mia").userId)!;
    expect(devices).toHaveLength(1);
    await client.push.sendE2eeTestNotification();
    expect(state.sent).toEqual([
      { userId: sandbox.user("mia").userId, pushAccountId: devices[0]!.pushAccountId },
    ]);
    await client.push.sendE2eeTestNotification({ push_account_id: devices[0]!.pushAccountId });
    expect(state.sent).toHaveLength(2);
  });

  it("NO_ACTIVE_PUSH_DEVICE for a push_account_id the user has no device for", async (ctx) => {
    needSandbox(ctx, server());
    await expectApiError(
      server().client("member").push.sendE2eeTestNotification({ push_account_id: 424242 }),
      "NO_ACTIVE_PUSH_DEVICE",
    );
  });

  it("refuses an empty token, one of invalid length, and an invalid one", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const client = server().client("moderator");
    for (const [token, msg] of [
      ["", /Empty or invalid length/],
      ["f".repeat(4097), /Empty or invalid length/],
      ["not a token!", /Invalid token/],
    ] as const) {
      const error = await expectApiError(
        client.push.addNativeDeviceToken({ token, appid: APPID }),
        "BAD_REQUEST",
        400,
      );
      expect(error.msg).toMatch(msg);
    }
    expect(pushState(sandbox.realm).devices.get(sandbox.user("max").userId)).toBeUndefined();
  });

  it("gives the bouncer's errors as configured in the sandbox", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const client = server().client("member");
    const cases = [
      ["ADMIN_ACTION_REQUIRED", 400],
      ["FAILED_TO_CONNECT_BOUNCER", 502],
      ["INTERNAL_SERVER_ERROR_ON_BOUNCER", 502],
    ] as const;
    const sentBefore = pushState(sandbox.realm).sent.length;
    try {
      for (const [code, status] of cases) {
        sandbox.realm.settings.pushBouncer = code;
        await expectApiError(client.push.sendE2eeTestNotification(), code, status);
      }
    } finally {
      sandbox.realm.settings.pushBouncer = "ok";
    }
    expect(pushState(sandbox.realm).sent.length).toBe(sentBefore);
  });

  it("startSandbox's settings choose the bouncer's answer from the start", async (ctx) => {
    needSandbox(ctx, server());
    const sandbox = await startSandbox({ settings: { pushBouncer: "FAILED_TO_CONNECT_BOUNCER" } });
    const mia = sandbox.user("mia");
    const client = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
    try {
      await client.push.addNativeDeviceToken({ token: "0a0b0c", appid: APPID });
      await expectApiError(
        client.push.sendE2eeTestNotification({}, { retry: false }),
        "FAILED_TO_CONNECT_BOUNCER",
        502,
      );
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});
