// Widgets as the server makes them: `widget_content` checked like its check_widget_content, `/poll` and `/todo` content parsed, both stored as a `widget` submessage.
import { badRequest } from "./errors.js";

/** What a widget submessage holds (its `content` is this as JSON). */
export interface WidgetContent {
  widget_type: string;
  extra_data: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The server's check_widget_content: only zform `choices` widgets may be sent this way. */
function widgetProblem(content: unknown): string | undefined {
  if (!isObject(content)) return "widget_content is not a dict";
  if (!("widget_type" in content)) return "widget_type is not in widget_content";
  if (!("extra_data" in content)) return "extra_data is not in widget_content";
  const { widget_type: type, extra_data: extra } = content;
  if (!isObject(extra)) return "extra_data is not a dict";
  if (type !== "zform") return `unknown widget type: ${String(type)}`;
  if (!("type" in extra)) return "zform is missing type field";
  if (extra.type !== "choices") return `unknown zform type: ${String(extra.type)}`;
  if (typeof extra.heading !== "string") return 'extra_data["heading"] is not a string';
  if (!Array.isArray(extra.choices)) return 'extra_data["choices"] is not a list';
  for (const [i, choice] of extra.choices.entries()) {
    if (!isObject(choice)) return `extra_data["choices"][${i}] is not a dict`;
    for (const key of ["short_name", "long_name", "reply"])
      if (typeof choice[key] !== "string")
        return `extra_data["choices"][${i}]["${key}"] is not a string`;
  }
  return undefined;
}

/**
 * Checks a `widget_content` parameter (an object, or JSON text) as the server does; refusals are
 * `BAD_REQUEST` with the server's `Widgets: ...` messages.
 */
export function checkedWidgetContent(param: string | Record<string, unknown>): WidgetContent {
  let content: unknown = param;
  if (typeof param === "string") {
    try {
      content = JSON.parse(param);
    } catch {
      throw badRequest("Widgets: API programmer sent invalid JSON content");
    }
  }
  const problem = widgetProblem(content);
  if (problem) throw badRequest(`Widgets: ${problem}`);
  return content as WidgetContent;
}

/** Lines after the first, list markers removed, blank ones dropped. */
const items = (lines: string[]): string[] =>
  lines.map((line) => line.trim().replace(/^[-*]?\s*/, "")).filter((item) => item.length > 0);

/**
 * The widget a message's content asks for, as the server's get_widget_data: `/poll question`
 * with one option a line, or `/todo title` with one `task: description` a line.
 */
export function widgetFromContent(content: string): WidgetContent | undefined {
  // A fast path: content not starting with `/` (nearly every message) asks for no widget, and
  // splitting it at every space to find its first word costs a share of a send.
  if (!content.startsWith("/")) return undefined;
  const first = content.split(/\s+/)[0] ?? "";
  const type = first.slice(1);
  if (!first.startsWith("/") || (type !== "poll" && type !== "todo")) return undefined;
  const lines = content.replace(first, "").split(/\r?\n/);
  const heading = lines.shift()?.trim() ?? "";
  if (type === "poll")
    return { widget_type: "poll", extra_data: { question: heading, options: items(lines) } };
  const tasks = items(lines).map((line) => {
    const [task, ...desc] = line.split(": ");
    return { task: task!.trim(), desc: desc.join(": ").trim() };
  });
  return { widget_type: "todo", extra_data: { task_list_title: heading, tasks } };
}
