// Personal subscription properties in the sandbox: stored values, their defaults, and how changes apply.
import type { BooleanSubscriptionProperty } from "../api/subscriptionProperties.js";

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

/** The properties of a subscription that starts now: the palette colour of its channel, nothing muted. */
function defaults(streamId: number): SubscriptionProperties {
  return {
    color: PALETTE[(streamId - 1) % PALETTE.length]!,
    is_muted: false,
    pin_to_top: false,
    desktop_notifications: null,
    audible_notifications: null,
    push_notifications: null,
    email_notifications: null,
    wildcard_mentions_notify: null,
  };
}

/**
 * The realm's one store of personal subscription settings, keyed by user and channel. Subscribing
 * creates an entry; POST /users/me/subscriptions/properties changes it; GET
 * /users/me/subscriptions, the `is:muted` narrow and the automatic unmute policy read it.
 *
 * @example
 * realm.subscriptionProperties.of(userId, streamId).is_muted = true;
 */
export class SubscriptionPropertyStore {
  readonly #byKey = new Map<string, SubscriptionProperties>();

  /** A user's properties for one channel, created with defaults on first use. */
  of(userId: number, streamId: number): SubscriptionProperties {
    const key = `${userId}:${streamId}`;
    let props = this.#byKey.get(key);
    if (!props) {
      props = defaults(streamId);
      this.#byKey.set(key, props);
    }
    return props;
  }

  /** The properties if the user ever had that subscription; never creates them. */
  peek(userId: number, streamId: number): SubscriptionProperties | undefined {
    return this.#byKey.get(`${userId}:${streamId}`);
  }

  /** Whether the user muted the channel (false when they never subscribed). */
  isMuted(userId: number, streamId: number): boolean {
    return this.peek(userId, streamId)?.is_muted ?? false;
  }
}

/** The personal fields of a subscription object (GET /users/me/subscriptions, `subscription` add events). */
export function subscriptionPropertiesView(props: SubscriptionProperties): Record<string, unknown> {
  return {
    color: props.color,
    is_muted: props.is_muted,
    in_home_view: inHomeView(props),
    pin_to_top: props.pin_to_top,
    desktop_notifications: props.desktop_notifications,
    audible_notifications: props.audible_notifications,
    push_notifications: props.push_notifications,
    email_notifications: props.email_notifications,
    wildcard_mentions_notify: props.wildcard_mentions_notify,
  };
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
    // The server's order: the deprecated in_home_view event first, then is_muted.
    return [
      ["in_home_view", !props.is_muted],
      ["is_muted", props.is_muted],
    ];
  }
  props[property] = value === true;
  return [[property, value === true]];
}
