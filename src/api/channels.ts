// Channels on the wire: the channel object and GET /streams.
import { z } from "zod";
import { endpoint } from "./endpoint.js";

/** A channel as GET /streams lists it. */
export const channel = z.looseObject({
  stream_id: z.number().int(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string().optional(),
  invite_only: z.boolean(),
  is_web_public: z.boolean().optional(),
  history_public_to_subscribers: z.boolean().optional(),
  date_created: z.number().int().optional(),
  is_archived: z.boolean().optional(),
  first_message_id: z.number().int().nullable().optional(),
});
export type Channel = z.infer<typeof channel>;

export const list = endpoint({
  method: "GET",
  path: "/streams",
  params: () =>
    z.object({
      include_public: z.boolean().optional(),
      include_web_public: z.boolean().optional(),
      include_subscribed: z.boolean().optional(),
      exclude_archived: z.boolean().optional(),
      include_all: z.boolean().optional(),
      include_all_active: z.boolean().optional(),
      include_default: z.boolean().optional(),
      include_owner_subscribed: z.boolean().optional(),
      include_can_access_content: z.boolean().optional(),
    }),
  response: () => z.looseObject({ streams: z.array(channel) }),
});

export const channelsEndpoints = { list } as const;
