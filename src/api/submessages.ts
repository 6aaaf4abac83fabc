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
  params: () => z.object({ message_id: int, msg_type: z.string().min(1), content: str }),
  response: () => z.looseObject({}),
  idempotent: false,
});

/** A poll vote: `key` names the option (`canned,<index>` for the poll's own options), `vote` 1 adds, -1 takes back. */
export const pollVote = z.object({
  type: z.literal("vote"),
  key: str,
  vote: z.union([z.literal(1), z.literal(-1)]),
});
/** A new poll option, at index `idx` among the sender's own additions (key `<sender_id>,<idx>`). */
export const pollNewOption = z.object({
  type: z.literal("new_option"),
  option: str,
  idx: z.int().min(0).max(1000),
});
/** A new question; only the poll's author may send it. */
export const pollQuestion = z.object({ type: z.literal("question"), question: str });
export const pollData = z.discriminatedUnion("type", [pollVote, pollNewOption, pollQuestion]);
export type PollData = z.infer<typeof pollData>;

/** A new task, at index `key` among the sender's additions (task key `<key>,<sender_id>`). */
export const todoNewTask = z.object({
  type: z.literal("new_task"),
  key: z.int().min(0).max(1000),
  task: str,
  desc: str,
  completed: z.boolean(),
});
/** Toggles a task done or not: `key` is the task's key (`<index>,canned` for the list's own tasks). */
export const todoStrike = z.object({ type: z.literal("strike"), key: str });
/** A new list title; only the list's author may send it. */
export const todoTitle = z.object({ type: z.literal("new_task_list_title"), title: str });
export const todoData = z.discriminatedUnion("type", [todoNewTask, todoStrike, todoTitle]);
export type TodoData = z.infer<typeof todoData>;

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
