// Submessages on the wire: POST /submessage, the `submessage` event, and the widget data polls and todo lists exchange.
import { z } from "zod";
import { int, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";

/**
 * POST /submessage: attaches a submessage (a poll vote, a todo strike, ...) to a message. The
 * first submessage of a message must come from its sender (the widget itself); after that,
 * anyone who can see the message may add one. `content` is JSON text; for `msg_type: "widget"`
 * on a poll or todo message it must be one of the widget data shapes below (`widgetData`).
 *
 * @example
 * await client.messages.addSubmessage({
 *   message_id: id,
 *   msg_type: "widget",
 *   content: submessageContent({ type: "vote", key: "canned,0", vote: 1 }),
 * });
 */
export const addSubmessage = endpoint({
  method: "POST",
  path: "/submessage",
  params: () => z.object({ message_id: int, msg_type: str, content: str }),
  response: () => z.looseObject({}),
  idempotent: false,
});

/**
 * The widget data schemas, built on first use (a bot that never reads widget data builds none):
 * a poll's `vote` (`key` names the option, `canned,<index>` for the poll's own; `vote` 1 adds,
 * -1 takes back), `new_option` (at index `idx` among the sender's additions: key
 * `<sender_id>,<idx>`) and `question` (the author only); a todo list's `new_task` (at index
 * `key` among the sender's additions: task key `<key>,<sender_id>`), `strike` (toggles the task
 * `key`, `<index>,canned` for the list's own) and `new_task_list_title` (the author only).
 */
function buildWidgetSchemas() {
  const pollData = z.discriminatedUnion("type", [
    z.object({ type: z.literal("vote"), key: str, vote: z.union([z.literal(1), z.literal(-1)]) }),
    z.object({ type: z.literal("new_option"), option: str, idx: z.int().min(0).max(1000) }),
    z.object({ type: z.literal("question"), question: str }),
  ]);
  const todoData = z.discriminatedUnion("type", [
    z.object({
      type: z.literal("new_task"),
      key: z.int().min(0).max(1000),
      task: str,
      desc: str,
      completed: z.boolean(),
    }),
    z.object({ type: z.literal("strike"), key: str }),
    z.object({ type: z.literal("new_task_list_title"), title: str }),
  ]);
  return { pollData, todoData };
}

let widgetSchemas: ReturnType<typeof buildWidgetSchemas> | undefined;

/** The schemas of poll data and todo data (`pollData.safeParse(JSON.parse(content))`). */
export const widgetDataSchemas = (): ReturnType<typeof buildWidgetSchemas> =>
  (widgetSchemas ??= buildWidgetSchemas());

export type PollData = z.infer<ReturnType<typeof buildWidgetSchemas>["pollData"]>;
export type TodoData = z.infer<ReturnType<typeof buildWidgetSchemas>["todoData"]>;

/** What a `widget` submessage after the first carries: a poll's or a todo list's data. */
export type WidgetData = PollData | TodoData;

/** The JSON text of widget data, as `content` of POST /submessage. */
export const submessageContent = (data: WidgetData): string => JSON.stringify(data);

/** The key of a poll's own option `index` (the options of `/poll` content or of the widget). */
export const pollOptionKey = (index: number): string => `canned,${index}`;
/** The key of a todo list's own task `index`. */
export const todoTaskKey = (index: number): string => `${index},canned`;

/** `submessage`: a submessage was added to a message the receiver has. */
export const submessageEvent = z.looseObject({
  id: int,
  type: z.literal("submessage"),
  msg_type: str,
  message_id: int,
  submessage_id: int,
  sender_id: int,
  /** JSON text, as it was sent. */
  content: str,
});
export type SubmessageEvent = z.infer<typeof submessageEvent>;

export const submessageEndpoints = { addSubmessage } as const;
