// What the developer types in `bot dev` and how the chat is printed: pure functions, tested alone.

/** Where the developer's next line goes. */
export type Place =
  { type: "channel"; channel: string; topic: string } | { type: "direct"; to: string };

/** One line typed at the prompt, understood. */
export type Input =
  | { kind: "say"; text: string }
  | { kind: "switch"; place: Place }
  | { kind: "as"; handle: string }
  | { kind: "help" }
  | { kind: "quit" }
  | { kind: "nothing" }
  | { kind: "error"; message: string };

/**
 * The developer's commands; `remote` (a real server) leaves out what only the sandbox can do.
 *
 * @example
 * write(helpText(false));
 */
export function helpText(remote: boolean): string {
  return [
    "Type a message and press Enter to send it.",
    remote
      ? "  #channel > topic   talk in that channel topic (the channel must exist); `#channel` keeps the topic"
      : "  #channel > topic   talk in that channel topic (created if needed); `#channel` keeps the topic",
    "  @name              talk to someone in a direct message (`@bot` is the bot)",
    remote
      ? "  /as <handle>       (sandbox only: on a server you are the account of your zuliprc)"
      : "  /as <handle>       speak as another user: olivia (owner), adam (admin), max (moderator), mia, gus (guest)",
    "  /help              this text      /quit   stop (or Ctrl-D)",
  ].join("\n");
}

/**
 * Reads one typed line.
 *
 * @example
 * parseInput("#general > lunch", current); // { kind: "switch", place: { type: "channel", channel: "general", topic: "lunch" } }
 */
export function parseInput(line: string, current: Place): Input {
  const text = line.trim();
  if (text === "") return { kind: "nothing" };
  const place = /^#\s*([^>]+?)\s*(?:>\s*(.+?)\s*)?$/.exec(text);
  if (place && !text.startsWith("#**")) {
    const topic = place[2] ?? (current.type === "channel" ? current.topic : "dev");
    return { kind: "switch", place: { type: "channel", channel: place[1]!, topic } };
  }
  const direct = /^@(\S+)$/.exec(text);
  if (direct) return { kind: "switch", place: { type: "direct", to: direct[1]! } };
  if (text === "/quit" || text === "/exit") return { kind: "quit" };
  if (text === "/help") return { kind: "help" };
  const as = /^\/as\s+(\S+)$/.exec(text);
  if (as) return { kind: "as", handle: as[1]! };
  if (/^\/[a-z]+/.test(text) && !text.startsWith("//"))
    return { kind: "error", message: `unknown command ${text.split(/\s/)[0]}; /help lists them` };
  return { kind: "say", text: line.replace(/\s+$/, "") };
}

/** `#general > dev` or `@bot`. */
export const describePlace = (place: Place): string =>
  place.type === "channel" ? `#${place.channel} > ${place.topic}` : `@${place.to}`;

/** Control characters but line break and tab: C0, DEL and C1 (ESC starts terminal escape sequences). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text from the chat made safe to print on a terminal: control characters are shown as `\x1b`
 * and the like instead of being sent. A message on the server is written by anyone there, and an
 * escape sequence in it could clear the developer's screen, rewrite what they see, set their
 * window title or (OSC 52) their clipboard.
 *
 * @example
 * printable("hi\u001b[2J"); // "hi\\x1b[2J"
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** A chat line: `[#general > dev] Topic Bot (ping › command ping): pong`, continuation lines indented. */
export function chatLine(where: string, who: string, text: string, via?: string): string {
  const head = printable(`[${where}] ${who}${via ? ` (${via})` : ""}: `);
  return (
    head +
    printable(text)
      .split("\n")
      .join(`\n${" ".repeat(Math.min(head.length, 8))}`)
  );
}

/** What a reaction line says: `reacted :tada: on "!deploy v2"` (the message cut at 40 characters). */
export function reactionText(op: "add" | "remove", emoji: string, content: string): string {
  const excerpt = content.length > 40 ? `${content.slice(0, 39)}…` : content;
  return `${op === "add" ? "reacted" : "took back"} :${emoji}: on ${JSON.stringify(excerpt)}`;
}

/**
 * How many terminal rows `text` takes at `columns` characters a row (each line at least one):
 * what `bot dev` moves up over to rewrite a chat line in place when its message is edited.
 */
export function rowsOf(text: string, columns: number): number {
  const width = Math.max(1, columns);
  return text
    .split("\n")
    .reduce((rows, line) => rows + Math.max(1, Math.ceil([...line].length / width)), 0);
}
