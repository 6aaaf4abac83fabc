// Submessages as the server takes them: who may attach one, poll and todo data checked, stored and sent as `submessage` events.
import { badRequest } from "./errors.js";
import type { Realm } from "./realm.js";
import type { SandboxUser, StoredMessage } from "./model.js";

/** The server's MAX_IDX: the most options (tasks) one user may add to a widget. */
const MAX_IDX = 1000;

type Check = (name: string, value: unknown) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const checkString: Check = (name, v) =>
  typeof v === "string" ? undefined : `${name} is not a string`;
const checkBool: Check = (name, v) =>
  typeof v === "boolean" ? undefined : `${name} is not a boolean`;
const isInt = (v: unknown): v is number => Number.isInteger(v);
const checkIntIn =
  (allowed: number[]): Check =>
  (name, v) =>
    !isInt(v) ? `${name} is not an integer` : allowed.includes(v) ? undefined : `Invalid ${name}`;
const checkIntRange =
  (low: number, high: number): Check =>
  (name, v) =>
    !isInt(v)
      ? `${name} is not an integer`
      : v < low
        ? `${name} is too small`
        : v > high
          ? `${name} is too large`
          : undefined;

/** The server's check_dict_only: every listed key present and valid, no other key. */
function checkDictOnly(
  name: string,
  value: Record<string, unknown>,
  keys: [string, Check][],
): void {
  for (const [key, check] of keys) {
    if (!(key in value)) throw badRequest(`${key} key is missing from ${name}`);
    const problem = check(`${name}["${key}"]`, value[key]);
    if (problem) throw badRequest(problem);
  }
  const extra = Object.keys(value).filter((k) => !keys.some(([key]) => key === k));
  if (extra.length > 0) throw badRequest(`Unexpected arguments: ${extra.join(", ")}`);
}

/** `data`'s `type`, checked as the server's check_dict([("type", check_string)]). */
function dataType(name: string, data: unknown): { value: Record<string, unknown>; type: string } {
  if (!isObject(data)) throw badRequest(`${name} is not a dict`);
  if (!("type" in data)) throw badRequest(`type key is missing from ${name}`);
  if (typeof data.type !== "string") throw badRequest(`${name}["type"] is not a string`);
  return { value: data, type: data.type };
}

/** The server's validate_poll_data. */
function checkPollData(data: unknown, isAuthor: boolean): void {
  const name = "poll data";
  const { value, type } = dataType(name, data);
  if (type === "vote")
    return checkDictOnly(name, value, [
      ["type", checkString],
      ["key", checkString],
      ["vote", checkIntIn([1, -1])],
    ]);
  if (type === "question") {
    if (!isAuthor) throw badRequest("You can't edit a question unless you are the author.");
    return checkDictOnly(name, value, [
      ["type", checkString],
      ["question", checkString],
    ]);
  }
  if (type === "new_option")
    return checkDictOnly(name, value, [
      ["type", checkString],
      ["option", checkString],
      ["idx", checkIntRange(0, MAX_IDX)],
    ]);
  throw badRequest(`Unknown type for poll data: ${type}`);
}

/** The server's validate_todo_data. */
function checkTodoData(data: unknown, isAuthor: boolean): void {
  const name = "todo data";
  const { value, type } = dataType(name, data);
  if (type === "new_task")
    return checkDictOnly(name, value, [
      ["type", checkString],
      ["key", checkIntRange(0, MAX_IDX)],
      ["task", checkString],
      ["desc", checkString],
      ["completed", checkBool],
    ]);
  if (type === "strike")
    return checkDictOnly(name, value, [
      ["type", checkString],
      ["key", checkString],
    ]);
  if (type === "new_task_list_title") {
    if (!isAuthor)
      throw badRequest("You can't edit the task list title unless you are the author.");
    return checkDictOnly(name, value, [
      ["type", checkString],
      ["title", checkString],
    ]);
  }
  throw badRequest(`Unknown type for todo data: ${type}`);
}

/** The widget type of a message (from its first `widget` submessage), as the server's get_widget_type. */
export function widgetType(message: StoredMessage): string | undefined {
  const widget = message.submessages.find((s) => s.msgType === "widget");
  if (!widget) return undefined;
  try {
    const data: unknown = JSON.parse(widget.content);
    return isObject(data) && typeof data.widget_type === "string" ? data.widget_type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * POST /submessage after access is checked: the first submessage of a message must come from
 * its sender; `content` must be JSON, and poll or todo data of the shapes the server accepts.
 * Stores it and sends a `submessage` event to every user who has the message (received it).
 */
export function addSubmessage(
  realm: Realm,
  sender: SandboxUser,
  message: StoredMessage,
  msgType: string,
  content: string,
): number {
  if (
    message.senderId !== sender.userId &&
    !message.submessages.some((s) => s.senderId === message.senderId)
  )
    throw badRequest("You cannot attach a submessage to this message.");
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    throw badRequest("Invalid json for submessage");
  }
  const isAuthor = message.senderId === sender.userId;
  const type = widgetType(message);
  if (type === "poll") checkPollData(data, isAuthor);
  if (type === "todo") checkTodoData(data, isAuthor);
  const id = realm.newSubmessageId();
  message.submessages.push({ id, senderId: sender.userId, msgType, content });
  realm.pushEvent(message.flags.keys(), {
    type: "submessage",
    msg_type: msgType,
    message_id: message.id,
    submessage_id: id,
    sender_id: sender.userId,
    content,
  });
  return id;
}
