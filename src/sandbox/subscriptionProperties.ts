// Personal subscription properties in the sandbox: stored values, their defaults, and how changes apply.
import type { BooleanSubscriptionProperty } from "../api/subscriptionProperties.js";
import type { Realm } from "./realm.js";

export interface SubscriptionProperties {
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  /** Per-channel notification settings; null means "follow the user's global setting". */
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
}

/** Colours new subscriptions get, in turn by channel ID. */
const PALETTE = ["#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55"];

const byRealm = new WeakMap<Realm, Map<string, SubscriptionProperties>>();

/** A user's properties for one channel, created with defaults on first use. */
export function subscriptionProperties(
  realm: Realm,
  userId: number,
  streamId: number,
): SubscriptionProperties {
  let all = byRealm.get(realm);
  if (!all) {
    all = new Map();
    byRealm.set(realm, all);
  }
  const key = `${userId}:${streamId}`;
  let props = all.get(key);
  if (!props) {
    props = {
      color: PALETTE[(streamId - 1) % PALETTE.length]!,
      is_muted: false,
      pin_to_top: false,
      desktop_notifications: null,
      audible_notifications: null,
      push_notifications: null,
      email_notifications: null,
      wildcard_mentions_notify: null,
    };
    all.set(key, props);
  }
  return props;
}

/** `in_home_view` as clients still read it: the inverse of `is_muted`. */
export const inHomeView = (props: SubscriptionProperties): boolean => !props.is_muted;

/** Valid colours: `#rgb` or `#rrggbb`. */
export const HEX_COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/**
 * Applies one change; returns the `(property, value)` pairs to announce in subscription update
 * events: two for `is_muted`/`in_home_view`, one otherwise.
 */
export function applyPropertyChange(
  props: SubscriptionProperties,
  property: "color" | BooleanSubscriptionProperty,
  value: string | boolean,
): [string, string | boolean][] {
  if (property === "color") {
    props.color = String(value);
    return [["color", props.color]];
  }
  if (property === "is_muted" || property === "in_home_view") {
    props.is_muted = property === "is_muted" ? value === true : value !== true;
    return [
      ["is_muted", props.is_muted],
      ["in_home_view", !props.is_muted],
    ];
  }
  props[property] = value === true;
  return [[property, value === true]];
}
