// Topics on the wire: POST /mark_topic_as_read (deprecated, still what bots use for one topic).
import { z } from "zod";
import { int, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";

export const markAsRead = endpoint({
  method: "POST",
  path: "/mark_topic_as_read",
  params: () => z.object({ stream_id: int, topic_name: str }),
  response: () => z.looseObject({}),
  idempotent: true,
});

export const topicsEndpoints = { markAsRead } as const;
