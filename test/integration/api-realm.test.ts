// Contract: PATCH /realm/user_settings_defaults (realm.updateUserSettingsDefaults).
import { expect, it } from "vitest";
import { InvalidArgumentError, realmApi, type UserSettingsDefaults } from "topicbot/client";
import { describeContract, expectApiError, needSandbox, rawRequest } from "./contract/servers.js";

/** One allowed value of every non-boolean setting, and one refused value where the spec limits them. */
const SETTINGS: [keyof UserSettingsDefaults, unknown, string | undefined][] = [
  ["web_channel_default_view", 4, "5"],
  ["web_font_size_px", 18, "0"],
  ["web_line_height_percent", 120, "-1"],
  ["color_scheme", 2, "4"],
  ["web_home_view", "recent_topics", "home"],
  ["emojiset", "twitter", "apple"],
  ["demote_inactive_streams", 3, "0"],
  ["user_list_style", 3, "4"],
  ["web_animate_image_previews", "never", "sometimes"],
  ["web_stream_unreads_count_display_policy", 3, "4"],
  ["notification_sound", "ding", "no-such-sound"],
  ["email_notifications_batching_period_seconds", 300, "-5"],
  ["desktop_icon_count_display", 4, "5"],
  ["realm_name_in_email_notifications_policy", 2, "9"],
  ["automatically_follow_topics_policy", 4, "5"],
  ["automatically_unmute_topics_in_muted_streams_policy", 1, "0"],
  ["resolved_topic_notice_auto_read_policy", "never", "sometimes"],
  ["email_address_visibility", 5, "6"],
];

const { BOOLEAN_USER_SETTINGS } = realmApi;

describeContract("PATCH /realm/user_settings_defaults", (server) => {
  it("accepts every boolean setting of the spec and changes no existing user", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const realm = sandbox.realm;
    const before = { ...realm.users.get(sandbox.user("mia").userId)!.settings };
    const flipped = Object.fromEntries(
      BOOLEAN_USER_SETTINGS.map((name) => [name, !realm.userSettingsDefaults[name]]),
    );
    const res = await server().client("admin").realm.updateUserSettingsDefaults(flipped);
    expect(res.ignored_parameters_unsupported).toBeUndefined();
    for (const name of BOOLEAN_USER_SETTINGS)
      expect(realm.userSettingsDefaults[name]).toBe(flipped[name]);
    expect(realm.users.get(sandbox.user("mia").userId)!.settings).toEqual(before);
  });

  it("accepts each integer and string setting's allowed values; the server refuses others", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const client = server().client("owner");
    for (const [name, good, bad] of SETTINGS) {
      await client.realm.updateUserSettingsDefaults({ [name]: good });
      expect(sandbox.realm.userSettingsDefaults[name]).toBe(good);
      if (bad === undefined) continue;
      const res = await rawRequest(server(), "owner", "PATCH", "/realm/user_settings_defaults", {
        [name]: bad,
      });
      expect(res.status, `${name}=${bad}`).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
      expect(sandbox.realm.userSettingsDefaults[name]).toBe(good);
    }
  });

  it("the client refuses values outside the allowed set before sending", async (ctx) => {
    needSandbox(ctx, server());
    await expect(
      server()
        .client("owner")
        .realm.updateUserSettingsDefaults({ color_scheme: 7 as 1 }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it("names unsupported settings in ignored_parameters_unsupported", async (ctx) => {
    needSandbox(ctx, server());
    const res = await server()
      .client("admin")
      .realm.updateUserSettingsDefaults({
        enter_sends: true,
        ...({ dense_mode: true, no_such_setting: 1 } as object),
      });
    expect(res.ignored_parameters_unsupported?.sort()).toEqual(["dense_mode", "no_such_setting"]);
  });

  it("administrators only: moderators, members and guests get BAD_REQUEST", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    for (const role of ["moderator", "member", "guest", "bot"] as const) {
      await expectApiError(
        server().client(role).realm.updateUserSettingsDefaults({ emojiset: "text" }),
        "BAD_REQUEST",
        400,
      );
    }
    expect(sandbox.realm.userSettingsDefaults.emojiset).not.toBe("text");
  });
});
