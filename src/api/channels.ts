// Channels on the wire: the channel object and GET /streams.
import { z } from "zod";
import { bool, int, optBool, optInt, optStr, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";

/** A channel as GET /streams lists it. */
export const channel = z.looseObject({
  stream_id: int,
  name: str,
  description: str,
  rendered_description: optStr,
  invite_only: bool,
  is_web_public: optBool,
  history_public_to_subscribers: optBool,
  date_created: optInt,
  is_archived: optBool,
  first_message_id: z.int().nullable().optional(),
});
export type Channel = z.infer<typeof channel>;

export const list = endpoint({
  method: "GET",
  path: "/streams",
  params: () =>
    z.object({
      include_public: optBool,
      include_web_public: optBool,
      include_subscribed: optBool,
      exclude_archived: optBool,
      include_all: optBool,
      include_all_active: optBool,
      include_default: optBool,
      include_owner_subscribed: optBool,
      include_can_access_content: optBool,
    }),
  response: () => z.looseObject({ streams: z.array(channel) }),
});

export const channelsEndpoints = { list } as const;
