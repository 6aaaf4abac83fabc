// Scheduled messages on the wire: POST /scheduled_messages.
import { z } from "zod";
import { endpoint } from "./endpoint.js";
import { messageType } from "./common.js";

export const create = endpoint({
  method: "POST",
  path: "/scheduled_messages",
  params: () =>
    z.object({
      type: messageType,
      /** A channel ID, or a list of user IDs; names and emails are not accepted here. */
      to: z.union([z.number().int(), z.array(z.number().int()).min(1)]),
      content: z.string(),
      topic: z.string().optional(),
      scheduled_delivery_timestamp: z.number().int(),
      read_by_sender: z.boolean().optional(),
    }),
  response: () => z.looseObject({ scheduled_message_id: z.number().int() }),
  idempotent: false,
});
export type ScheduleParams = z.input<typeof create.params>;

export const scheduledMessagesEndpoints = { create } as const;
