// Scheduled messages on the wire: POST /scheduled_messages.
import { z } from "zod";
import { int, optBool, optStr, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";
import { messageType } from "./common.js";

export const create = endpoint({
  method: "POST",
  path: "/scheduled_messages",
  params: () =>
    z.object({
      type: messageType,
      /** A channel ID, or a list of user IDs; names and emails are not accepted here. */
      to: z.union([int, z.array(int).min(1)]),
      content: str,
      topic: optStr,
      scheduled_delivery_timestamp: int,
      read_by_sender: optBool,
    }),
  response: () => z.looseObject({ scheduled_message_id: int }),
  idempotent: false,
});
export type ScheduleParams = z.input<typeof create.params>;

export const scheduledMessagesEndpoints = { create } as const;
