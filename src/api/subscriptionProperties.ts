// Personal subscription settings on the wire: colour, muting, pinning and per-channel notifications.
import { z } from "zod";
import { bool, int, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";

/** Subscription properties whose value is a boolean. */
export const BOOLEAN_SUBSCRIPTION_PROPERTIES = [
  "is_muted",
  "in_home_view",
  "pin_to_top",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "wildcard_mentions_notify",
] as const;
export type BooleanSubscriptionProperty = (typeof BOOLEAN_SUBSCRIPTION_PROPERTIES)[number];
export type SubscriptionProperty = "color" | BooleanSubscriptionProperty;

/** One change: `color` takes a hex colour string, every other property a boolean. */
export const subscriptionPropertyChange = z.discriminatedUnion("property", [
  z.object({ stream_id: int, property: z.literal("color"), value: str }),
  z.object({
    stream_id: int,
    property: z.enum(BOOLEAN_SUBSCRIPTION_PROPERTIES),
    value: bool,
  }),
]);
export type SubscriptionPropertyChange = z.infer<typeof subscriptionPropertyChange>;

/**
 * POST /users/me/subscriptions/properties: change personal settings of subscribed channels.
 * Changing `is_muted` or `in_home_view` (its legacy inverse) sends two subscription update events.
 */
export const updateProperties = endpoint({
  method: "POST",
  path: "/users/me/subscriptions/properties",
  params: () => z.object({ subscription_data: z.array(subscriptionPropertyChange) }),
  response: () => z.looseObject({}),
  idempotent: true,
});

/** `subscription` event with `op: "update"`: one property of the receiver's subscription changed. */
export const subscriptionUpdateEvent = z.looseObject({
  id: int,
  type: z.literal("subscription"),
  op: z.literal("update"),
  stream_id: int,
  property: str,
  value: z.union([bool, str, z.number(), z.null()]),
});

export const subscriptionPropertiesEndpoints = { updateProperties } as const;
