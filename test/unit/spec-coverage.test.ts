// Every endpoint of the API contract (spec/api.md) has a client method in the wire table.
import { describe, expect, it } from "vitest";
import { clientMethods } from "../helpers/endpoints.js";

/** Every endpoint the contract specifies, copied from spec/api.md ("### METHOD {base_url}/path"). */
const SPEC_ENDPOINTS = [
  "POST /messages",
  "POST /scheduled_messages",
  "PATCH /realm/user_settings_defaults",
  "POST /users/me/subscriptions/properties",
  "PATCH /users/{email}",
  "GET /messages/matches_narrow",
  "POST /fetch_api_key",
  "GET /messages/{message_id}",
  "GET /messages/{message_id}/history",
  "POST /users/{user_id}/status",
  "POST /messages/flags/narrow",
  "GET /users",
  "POST /mark_topic_as_read",
  "POST /users/me/native_device_token",
  "POST /messages/{message_id}/reactions",
  "POST /users",
  "POST /messages/{message_id}/report",
  "POST /navigation_views",
  "GET /users/me",
  "POST /mobile_push/e2ee/test_notification",
  "POST /user_uploads",
] as const;

describe("spec coverage", () => {
  const methods = clientMethods();

  it.each(SPEC_ENDPOINTS)("%s has a client method", (e) => {
    expect(methods.get(e), `no client method for ${e}`).toBeDefined();
  });

  it("keeps the method names the issues fixed", () => {
    expect(Object.fromEntries(methods)).toMatchObject({
      "GET /users": "users.list",
      "GET /users/me": "users.me",
      "POST /users": "users.create",
      "PATCH /users/{email}": "users.updateByEmail",
      "POST /users/{user_id}/status": "users.setStatus",
      "PATCH /realm/user_settings_defaults": "realm.updateUserSettingsDefaults",
      "POST /users/me/subscriptions/properties": "subscriptions.updateProperties",
      "POST /navigation_views": "navigationViews.add",
      "POST /users/me/native_device_token": "push.addNativeDeviceToken",
      "POST /mobile_push/e2ee/test_notification": "push.sendE2eeTestNotification",
      "POST /fetch_api_key": "auth.fetchApiKey",
    });
  });
});
