// Topics on the wire: POST /mark_topic_as_read (deprecated, still what bots use for one topic).
import { z } from "zod";
import { endpoint } from "./endpoint.js";

export const markAsRead = endpoint({
  method: "POST",
  path: "/mark_topic_as_read",
  params: () => z.object({ stream_id: z.number().int(), topic_name: z.string() }),
  response: () => z.looseObject({}),
  idempotent: true,
});

export const topicsEndpoints = { markAsRead } as const;
