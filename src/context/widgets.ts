// Widget messages: polls and todo lists, which the server builds from `/poll` and `/todo` content.

/**
 * The content of a poll message: `/poll question` with one option per line. The server turns it
 * into a poll widget people vote in (it accepts `widget_content` from bots only for zforms).
 *
 * @example
 * await ctx.reply(pollContent("Lunch?", ["Pizza", "Sushi"]));
 */
export function pollContent(question: string, options: readonly string[]): string {
  return [`/poll ${oneLine(question)}`, ...options.map(oneLine)].join("\n");
}

/**
 * The content of a todo list message: `/todo title` with one task per line, which the server
 * turns into a todo widget.
 *
 * @example
 * await ctx.reply(todoContent("Release", ["tag", "announce"]));
 */
export function todoContent(title: string, tasks: readonly string[]): string {
  return [`/todo ${oneLine(title)}`, ...tasks.map(oneLine)].join("\n");
}

/** A line break inside a question or option would start a new option. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim();
