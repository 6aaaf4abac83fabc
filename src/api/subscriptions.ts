// Subscriptions on the wire: list the requester's channels and subscribe to more.
import { z } from "zod";
import { bool, int, optBool, optStr, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";
import { channel } from "./channels.js";

/** A channel the requester is subscribed to, with their personal settings for it. */
export const subscription = channel.extend({
  color: str,
  is_muted: bool,
  in_home_view: optBool,
  pin_to_top: bool,
  desktop_notifications: z.boolean().nullable(),
  audible_notifications: z.boolean().nullable(),
  push_notifications: z.boolean().nullable(),
  email_notifications: z.boolean().nullable(),
  wildcard_mentions_notify: z.boolean().nullable(),
  subscribers: z.array(int).optional(),
});
export type Subscription = z.infer<typeof subscription>;

export const list = endpoint({
  method: "GET",
  path: "/users/me/subscriptions",
  params: () => z.object({ include_subscribers: optBool }),
  response: () => z.looseObject({ subscriptions: z.array(subscription) }),
});

/** Users named by ID or email, keyed in answers by user ID (as a string). */
const byUser = z.record(str, z.array(str));

export const add = endpoint({
  method: "POST",
  path: "/users/me/subscriptions",
  params: () =>
    z.object({
      subscriptions: z
        .array(z.looseObject({ name: z.string().min(1), description: optStr }))
        .min(1),
      principals: z.union([z.array(int), z.array(str)]).optional(),
      authorization_errors_fatal: optBool,
      announce: optBool,
      invite_only: optBool,
      is_web_public: optBool,
      is_default_stream: optBool,
      history_public_to_subscribers: optBool,
      send_new_subscription_messages: optBool,
    }),
  response: () =>
    z.looseObject({
      subscribed: byUser,
      already_subscribed: byUser,
      unauthorized: z.array(str).optional(),
      new_subscription_messages_sent: optBool,
    }),
  // Subscribing twice only reports the second time as already_subscribed.
  idempotent: true,
});

export const subscriptionsEndpoints = { list, add } as const;
