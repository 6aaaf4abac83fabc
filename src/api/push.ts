// Mobile push on the wire: registering a device token and asking for an end-to-end encrypted test push.
import { z } from "zod";
import { optInt, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";

/** POST /users/me/native_device_token (deprecated): registers a platform push token for an app. */
export const addNativeDeviceToken = endpoint({
  method: "POST",
  path: "/users/me/native_device_token",
  params: () => z.object({ token: str, appid: str }),
  response: () => z.looseObject({}),
  idempotent: true,
});

/**
 * POST /mobile_push/e2ee/test_notification: a test push to one device (`push_account_id`) or all.
 * Fails with `NO_ACTIVE_PUSH_DEVICE` or one of the bouncer codes.
 */
export const sendE2eeTestNotification = endpoint({
  method: "POST",
  path: "/mobile_push/e2ee/test_notification",
  params: () => z.object({ push_account_id: optInt }),
  response: () => z.looseObject({}),
  idempotent: false,
});

export const pushEndpoints = { addNativeDeviceToken, sendE2eeTestNotification } as const;
