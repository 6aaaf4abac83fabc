// Subscriptions on the wire: list the requester's channels and subscribe to more.
import { z } from "zod";
import { endpoint } from "./endpoint.js";
import { channel } from "./channels.js";

/** A channel the requester is subscribed to, with their personal settings for it. */
export const subscription = channel.extend({
  color: z.string(),
  is_muted: z.boolean(),
  in_home_view: z.boolean().optional(),
  pin_to_top: z.boolean(),
  desktop_notifications: z.boolean().nullable(),
  audible_notifications: z.boolean().nullable(),
  push_notifications: z.boolean().nullable(),
  email_notifications: z.boolean().nullable(),
  wildcard_mentions_notify: z.boolean().nullable(),
  subscribers: z.array(z.number().int()).optional(),
});
export type Subscription = z.infer<typeof subscription>;

export const list = endpoint({
  method: "GET",
  path: "/users/me/subscriptions",
  params: () => z.object({ include_subscribers: z.boolean().optional() }),
  response: () => z.looseObject({ subscriptions: z.array(subscription) }),
});

/** Users named by ID or email, keyed in answers by user ID (as a string). */
const byUser = z.record(z.string(), z.array(z.string()));

export const add = endpoint({
  method: "POST",
  path: "/users/me/subscriptions",
  params: () =>
    z.object({
      subscriptions: z
        .array(z.looseObject({ name: z.string().min(1), description: z.string().optional() }))
        .min(1),
      principals: z.union([z.array(z.number().int()), z.array(z.string())]).optional(),
      authorization_errors_fatal: z.boolean().optional(),
      announce: z.boolean().optional(),
      invite_only: z.boolean().optional(),
      is_web_public: z.boolean().optional(),
      is_default_stream: z.boolean().optional(),
      history_public_to_subscribers: z.boolean().optional(),
      send_new_subscription_messages: z.boolean().optional(),
    }),
  response: () =>
    z.looseObject({
      subscribed: byUser,
      already_subscribed: byUser,
      unauthorized: z.array(z.string()).optional(),
      new_subscription_messages_sent: z.boolean().optional(),
    }),
  // Subscribing twice only reports the second time as already_subscribed.
  idempotent: true,
});

export const subscriptionsEndpoints = { list, add } as const;
