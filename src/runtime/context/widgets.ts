// Widgets a bot can attach to a message (the server's `widget_content`): polls, todo lists.
import type { Widget } from "./actions.js";

/**
 * A poll message: the text fallback `/poll question` with one option per line, and the widget.
 *
 * @example
 * const poll = pollWidget("Lunch?", ["Pizza", "Sushi"]);
 * await ctx.reply(poll.content, { widget: poll.widget });
 */
export function pollWidget(
  question: string,
  options: readonly string[],
): { content: string; widget: Widget } {
  return {
    content: [`/poll ${question}`, ...options].join("\n"),
    widget: { widget_type: "poll", extra_data: { question, options: [...options] } },
  };
}

/**
 * A todo list message: the text fallback `/todo` with one task per line, and the widget.
 *
 * @example
 * const todo = todoWidget("Release", ["tag", "announce"]);
 * await ctx.reply(todo.content, { widget: todo.widget });
 */
export function todoWidget(
  title: string,
  tasks: readonly string[],
): { content: string; widget: Widget } {
  return {
    content: [`/todo ${title}`, ...tasks].join("\n"),
    widget: {
      widget_type: "todo",
      extra_data: { task_list_title: title, tasks: tasks.map((task) => ({ task, desc: "" })) },
    },
  };
}
