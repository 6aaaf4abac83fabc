// Personal user settings in the sandbox: the built-in defaults and the rules on their values.
import { badRequest } from "./errors.js";

export type UserSettingValue = boolean | number | string;
export type UserSettings = Record<string, UserSettingValue>;

/**
 * The settings a fresh sandbox gives new users before any administrator changes them.
 * `email_address_visibility` starts at 1 (everyone) so seeded users' API emails are their real ones.
 */
export const DEFAULT_USER_SETTINGS: Readonly<UserSettings> = Object.freeze({
  starred_message_counts: true,
  receives_typing_notifications: true,
  web_suggest_update_timezone: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  enable_drafts_synchronization: true,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  hide_ai_features: false,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  enable_desktop_notifications: true,
  enable_sounds: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_digest_emails: true,
  message_content_in_email_notifications: true,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  automatically_follow_topics_where_mentioned: true,
  presence_enabled: true,
  enter_sends: false,
  twenty_four_hour_time: false,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  web_navigate_to_sent_message: true,
  web_channel_default_view: 1,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  color_scheme: 1,
  web_home_view: "inbox",
  emojiset: "google",
  demote_inactive_streams: 1,
  user_list_style: 2,
  web_animate_image_previews: "on_hover",
  web_stream_unreads_count_display_policy: 2,
  notification_sound: "zulip",
  email_notifications_batching_period_seconds: 120,
  desktop_icon_count_display: 1,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  resolved_topic_notice_auto_read_policy: "except_followed",
  email_address_visibility: 1,
});

/** Notification sounds the sandbox offers (`none` turns sounds off). */
export const NOTIFICATION_SOUNDS: readonly string[] = [
  "none",
  "zulip",
  "ding",
  "chime",
  "chirp",
  "bell",
];

/** `realm_name_in_email_notifications_policy`: 1 automatic, 2 always, 3 never. */
const REALM_NAME_POLICIES = [1, 2, 3];

/**
 * Rules the wire schema cannot state: value ranges and names the server knows.
 * Throws `BAD_REQUEST` naming the setting.
 */
export function checkSettingValues(values: Record<string, unknown>): void {
  const sound = values.notification_sound;
  if (sound !== undefined && !NOTIFICATION_SOUNDS.includes(String(sound)))
    throw badRequest(`Invalid notification sound '${String(sound)}'`);
  const policy = values.realm_name_in_email_notifications_policy;
  if (policy !== undefined && !REALM_NAME_POLICIES.includes(Number(policy)))
    throw badRequest("Invalid realm_name_in_email_notifications_policy");
  for (const name of ["web_font_size_px", "web_line_height_percent"]) {
    const value = values[name];
    if (value !== undefined && Number(value) <= 0) throw badRequest(`Invalid ${name}`);
  }
  const period = values.email_notifications_batching_period_seconds;
  if (period !== undefined && Number(period) < 0)
    throw badRequest("Invalid email_notifications_batching_period_seconds");
}
