// Typing notifications on the wire: POST /typing starts or stops "is typing" in a DM or a channel topic.
import { z } from "zod";
import { int, optInt, optStr } from "./leaves.js";
import { endpoint } from "./endpoint.js";

export const set = endpoint({
  method: "POST",
  path: "/typing",
  params: () =>
    z.object({
      op: z.enum(["start", "stop"]),
      /** `direct` (default; `private` is its old name) needs `to`; `stream`/`channel` need `stream_id` and `topic`. */
      type: z.enum(["direct", "stream", "channel", "private"]).optional(),
      /** The DM's recipients (user IDs). */
      to: z.array(int).optional(),
      stream_id: optInt,
      topic: optStr,
    }),
  response: () => z.looseObject({}),
  // Saying "typing" twice shows the same thing: safe to repeat after a lost answer.
  idempotent: true,
});
export type TypingParams = z.input<typeof set.params>;

export const typingEndpoints = { set } as const;
