// Organization settings on the wire: the message edit rules and the default user settings administrators give new users.
import { z } from "zod";
import { optBool, optInt, optStr } from "./leaves.js";
import { endpoint } from "./endpoint.js";

const oneOf = <const T extends readonly [number, ...number[]]>(values: T) =>
  z.literal(values).optional();

/** The boolean user settings an organization can default. */
export const BOOLEAN_USER_SETTINGS = [
  "starred_message_counts",
  "receives_typing_notifications",
  "web_suggest_update_timezone",
  "fluid_layout_width",
  "high_contrast_mode",
  "enable_drafts_synchronization",
  "translate_emoticons",
  "display_emoji_reaction_users",
  "web_escape_navigates_to_home_view",
  "left_side_userlist",
  "hide_ai_features",
  "enable_stream_desktop_notifications",
  "enable_stream_email_notifications",
  "enable_stream_push_notifications",
  "enable_stream_audible_notifications",
  "enable_desktop_notifications",
  "enable_sounds",
  "enable_followed_topic_desktop_notifications",
  "enable_followed_topic_email_notifications",
  "enable_followed_topic_push_notifications",
  "enable_followed_topic_audible_notifications",
  "enable_offline_email_notifications",
  "enable_offline_push_notifications",
  "enable_online_push_notifications",
  "enable_digest_emails",
  "message_content_in_email_notifications",
  "pm_content_in_desktop_notifications",
  "wildcard_mentions_notify",
  "enable_followed_topic_wildcard_mentions_notify",
  "automatically_follow_topics_where_mentioned",
  "presence_enabled",
  "enter_sends",
  "twenty_four_hour_time",
  "send_private_typing_notifications",
  "send_stream_typing_notifications",
  "send_read_receipts",
  "web_navigate_to_sent_message",
] as const;
export type BooleanUserSetting = (typeof BOOLEAN_USER_SETTINGS)[number];

/** Every default user setting with its allowed values; all optional. */
export const userSettingsDefaults = z.object({
  ...(Object.fromEntries(BOOLEAN_USER_SETTINGS.map((name) => [name, optBool])) as Record<
    BooleanUserSetting,
    typeof optBool
  >),
  /** 1 top topic in channel; 2 channel feed; 3 list of topics; 4 top unread topic in channel. */
  web_channel_default_view: oneOf([1, 2, 3, 4]),
  web_font_size_px: optInt,
  /** Percent: 120 means a line height of 1.2. */
  web_line_height_percent: optInt,
  /** 1 automatic; 2 dark; 3 light. */
  color_scheme: oneOf([1, 2, 3]),
  web_home_view: z.enum(["recent_topics", "inbox", "all_messages"]).optional(),
  emojiset: z.enum(["google", "twitter", "text"]).optional(),
  /** 1 automatic; 2 always; 3 never. */
  demote_inactive_streams: oneOf([1, 2, 3]),
  /** 1 compact; 2 with status; 3 with avatar and status. */
  user_list_style: oneOf([1, 2, 3]),
  web_animate_image_previews: z.enum(["always", "on_hover", "never"]).optional(),
  /** 1 all channels; 2 unmuted channels and topics; 3 no channels. */
  web_stream_unreads_count_display_policy: oneOf([1, 2, 3]),
  notification_sound: optStr,
  email_notifications_batching_period_seconds: optInt,
  /** 1 all unread messages; 2 DMs, mentions and followed topics; 3 DMs and mentions; 4 none. */
  desktop_icon_count_display: oneOf([1, 2, 3, 4]),
  realm_name_in_email_notifications_policy: optInt,
  /** 1 topics I participate in; 2 topics I send to; 3 topics I start; 4 never. */
  automatically_follow_topics_policy: oneOf([1, 2, 3, 4]),
  automatically_unmute_topics_in_muted_streams_policy: oneOf([1, 2, 3, 4]),
  resolved_topic_notice_auto_read_policy: z.enum(["always", "except_followed", "never"]).optional(),
  /** 1 everyone; 2 members only; 3 administrators only; 4 nobody; 5 moderators only. */
  email_address_visibility: oneOf([1, 2, 3, 4, 5]),
});
export type UserSettingsDefaults = z.infer<typeof userSettingsDefaults>;

/**
 * PATCH /realm/user_settings_defaults: administrators change the settings new users start with.
 * Existing users keep theirs; unsupported names come back in `ignored_parameters_unsupported`.
 */
export const updateUserSettingsDefaults = endpoint({
  method: "PATCH",
  path: "/realm/user_settings_defaults",
  params: () => userSettingsDefaults,
  response: () => z.looseObject({}),
  idempotent: true,
});

/**
 * A time limit in seconds, or `"unlimited"` (no limit). The server reads it as JSON, so the
 * client sends `"unlimited"` JSON-encoded; the sandbox accepts it either way.
 */
const timeLimit = () =>
  z
    .union([z.int().min(1), z.literal("unlimited"), z.literal('"unlimited"')])
    .transform((v) => (v === "unlimited" ? '"unlimited"' : v))
    .optional();

/**
 * PATCH /realm (the message edit settings of it): administrators set how long a message's
 * content may be edited (`message_content_edit_limit_seconds`, 600 by default), whether it may
 * be at all, and how long messages may be moved. Each change reaches every user as a `realm`
 * `update_dict` event.
 *
 * @example
 * await admin.realm.update({ message_content_edit_limit_seconds: 3600 });
 * await admin.realm.update({ message_content_edit_limit_seconds: "unlimited" });
 */
export const update = endpoint({
  method: "PATCH",
  path: "/realm",
  params: () =>
    z.object({
      allow_message_editing: optBool,
      message_content_edit_limit_seconds: timeLimit(),
      message_content_delete_limit_seconds: timeLimit(),
      move_messages_within_stream_limit_seconds: timeLimit(),
      move_messages_between_streams_limit_seconds: timeLimit(),
    }),
  response: () => z.looseObject({}),
  idempotent: true,
});

/** A time limit as `update` takes it, seconds or `"unlimited"`. */
export type RealmTimeLimit = number | "unlimited";

export const realmEndpoints = { updateUserSettingsDefaults, update } as const;
