// The harness's view of widgets: which key a poll option or todo task has, read from a message's submessages.
import { pollOptionKey, todoTaskKey } from "../api/submessages.js";
import type { Realm } from "../sandbox/realm.js";
import type { StoredMessage } from "../sandbox/model.js";

interface WidgetItem {
  /** The option's or task's text. */
  text: string;
  /** Its key in votes and strikes. */
  key: string;
}

function parse(content: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(content);
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The message's widget (`widget_type`, `extra_data`), or a clear error naming the message. */
function widgetOf(realm: Realm, messageId: number, wanted: "poll" | "todo"): StoredMessage {
  const message = realm.message(messageId);
  if (!message) throw new Error(`${wanted}: there is no message ${messageId}`);
  const widget = message.submessages.find((s) => s.msgType === "widget");
  const type = widget ? parse(widget.content)?.widget_type : undefined;
  if (type !== wanted)
    throw new Error(
      `${wanted}: message ${messageId} is ${type === undefined ? "not a widget" : `a ${String(type)} widget`}, not a ${wanted} (send "/${wanted} ..." content)`,
    );
  return message;
}

/** Later widget data of one type, in order, with who sent it. */
function laterData(
  message: StoredMessage,
  type: string,
): { sender: number; data: Record<string, unknown> }[] {
  return message.submessages
    .slice(1)
    .filter((s) => s.msgType === "widget")
    .map((s) => ({ sender: s.senderId, data: parse(s.content) }))
    .filter((d): d is { sender: number; data: Record<string, unknown> } => d.data?.type === type);
}

/** A poll's options with their keys: its own (`canned,<i>`) and those added later (`<sender>,<idx>`). */
export function pollOptions(realm: Realm, messageId: number): WidgetItem[] {
  const message = widgetOf(realm, messageId, "poll");
  const extra = parse(message.submessages[0]!.content)?.extra_data as { options?: unknown[] };
  const own = (extra?.options ?? []).map((text, i) => ({
    text: String(text),
    key: pollOptionKey(i),
  }));
  const added = laterData(message, "new_option").map(({ sender, data }) => ({
    text: String(data.option),
    key: `${sender},${String(data.idx)}`,
  }));
  return [...own, ...added];
}

/** A todo list's tasks with their keys: its own (`<i>,canned`) and those added later (`<key>,<sender>`). */
export function todoTasks(realm: Realm, messageId: number): WidgetItem[] {
  const message = widgetOf(realm, messageId, "todo");
  const extra = parse(message.submessages[0]!.content)?.extra_data as {
    tasks?: { task?: unknown }[];
  };
  const own = (extra?.tasks ?? []).map((t, i) => ({ text: String(t.task), key: todoTaskKey(i) }));
  const added = laterData(message, "new_task").map(({ sender, data }) => ({
    text: String(data.task),
    key: `${String(data.key)},${sender}`,
  }));
  return [...own, ...added];
}

/** The key of the item named by its text or its position, or an error listing what there is. */
export function itemKey(items: WidgetItem[], which: string | number, what: string): string {
  const item = typeof which === "number" ? items[which] : items.find((i) => i.text === which);
  if (!item)
    throw new Error(
      `no ${what} ${JSON.stringify(which)}; there are: ${items.map((i) => JSON.stringify(i.text)).join(", ") || "none"}`,
    );
  return item.key;
}

/** A zform's choices (`short_name` and the `reply` a click sends), read from its widget submessage. */
export function zformChoices(realm: Realm, messageId: number): { label: string; reply: string }[] {
  const message = realm.message(messageId);
  if (!message) throw new Error(`click: there is no message ${messageId}`);
  const widget = message.submessages.find((s) => s.msgType === "widget");
  const data = widget ? parse(widget.content) : undefined;
  const extra = data?.extra_data as { type?: unknown; choices?: unknown[] } | undefined;
  if (data?.widget_type !== "zform" || extra?.type !== "choices" || !Array.isArray(extra.choices))
    throw new Error(`click: message ${messageId} has no zform buttons (post it with ctx.card)`);
  return extra.choices.map((c) => {
    const choice = c as { short_name?: unknown; reply?: unknown };
    return { label: String(choice.short_name), reply: String(choice.reply) };
  });
}
