// The built-in help: the command list, one command's details, and "did you mean" for unknown commands.
import { code, escapeText } from "../markdown/escape.js";
import type { RoleName } from "../api/common.js";
import type { CommandInfo } from "./command.js";

/** Edit distance with adjacent transpositions counted as one edit (`pnig` is 1 from `ping`). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** Known command names close to `word`, best first: typos within 1-2 edits, or a prefix. */
export function suggest(word: string, names: readonly string[], max = 3): string[] {
  const w = word.toLowerCase();
  const allowed = w.length <= 3 ? 1 : 2;
  return names
    .map((name) => {
      const n = name.toLowerCase();
      const distance = n.startsWith(w) && w.length >= 2 ? 0.5 : editDistance(w, n);
      return { name, distance };
    })
    .filter((s) => s.distance <= allowed)
    .sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name))
    .slice(0, max)
    .map((s) => s.name);
}

/** The reply to an unknown command. */
export function unknownCommandReply(
  word: string,
  names: readonly string[],
  prefix: string,
): string {
  const close = suggest(word, names);
  const known = `${code(`${prefix}help`)} lists what I can do.`;
  if (close.length === 0) return `I don't know the command ${code(word)}. ${known}`;
  const options = close.map((n) => `${code(`${prefix}${n}`)}`).join(" or ");
  return `I don't know the command ${code(word)}. Did you mean ${options}? ${known}`;
}

const ROLE_PLURAL: Record<RoleName, string> = {
  owner: "owners",
  administrator: "administrators",
  moderator: "moderators",
  member: "members",
  guest: "guests",
};

/** `owners and administrators`. */
export function describeRoles(roles: readonly RoleName[]): string {
  const words = roles.map((r) => ROLE_PLURAL[r]);
  return words.length <= 1
    ? (words[0] ?? "nobody")
    : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/**
 * The reply to a command with subcommands given none, or one it does not have: "did you mean",
 * then the parent's usage and each subcommand's.
 */
export function unknownSubcommandReply(
  command: CommandInfo,
  word: string | undefined,
  prefix: string,
): string {
  const subs = command.subcommands ?? [];
  const names = subs.flatMap((s) => [s.name, ...(s.aliases ?? [])]);
  const lines: string[] = [];
  if (word === undefined) lines.push(`${code(`${prefix}${command.name}`)} needs a subcommand.`);
  else {
    const close = suggest(word, names);
    const guess = close.length
      ? ` Did you mean ${close.map((n) => `${code(`${prefix}${command.name} ${n}`)}`).join(" or ")}?`
      : "";
    lines.push(`${code(`${prefix}${command.name}`)} has no subcommand ${code(word)}.${guess}`);
  }
  lines.push(
    `Usage: ${code(`${prefix}${command.usage}`)}`,
    ...subs.map((s) => subcommandLine(s, prefix)),
  );
  return lines.join("\n");
}

/**
 * A plugin's or command's description, as help shows it: the author's Markdown stays, but no
 * mention in it notifies anyone (help answers whoever asks, and a description ending in `@*` would
 * make a group mention with the `*` of a later line).
 */
const described = (description: string): string => escapeText(description);

/** `- \`!todo add <item...>\`: Add an item`. */
const subcommandLine = (s: CommandInfo, prefix: string): string =>
  `- ${code(`${prefix}${s.usage}`)}${s.description ? `: ${described(s.description)}` : ""}`;

/** The full command list, grouped by plugin. */
export function helpIndex(
  commands: readonly CommandInfo[],
  plugins: ReadonlyMap<string, string | undefined>,
  prefix: string,
): string {
  const byPlugin = new Map<string, CommandInfo[]>();
  for (const c of commands) byPlugin.set(c.plugin, [...(byPlugin.get(c.plugin) ?? []), c]);
  const lines = [`Commands (say ${code(`${prefix}help <command>`)} for details):`];
  for (const [plugin, list] of byPlugin) {
    const about = plugins.get(plugin);
    lines.push("", about ? `**${plugin}**: ${described(about)}` : `**${plugin}**`);
    for (const c of list) {
      lines.push(
        `- ${code(`${prefix}${c.usage}`)}${c.description ? `: ${described(c.description)}` : ""}`,
      );
      for (const s of c.subcommands ?? []) lines.push(`  ${subcommandLine(s, prefix)}`);
    }
  }
  return lines.join("\n");
}

/**
 * One command (or subcommand) in detail: usage, description, aliases, who may run it, its
 * subcommands, argument notes, examples. `parent` is `todo ` for the subcommands of `todo`.
 */
export function helpFor(
  command: CommandInfo,
  prefix: string,
  notes: readonly string[] = [],
  parent = "",
): string {
  const lines = [`${code(`${prefix}${command.usage}`)}`];
  if (command.description) lines.push(described(command.description));
  if (command.aliases?.length)
    lines.push(
      `Also: ${command.aliases.map((a) => `${code(`${prefix}${parent}${a}`)}`).join(", ")}`,
    );
  if (command.roles?.length) lines.push(`Only for ${describeRoles(command.roles)}.`);
  if (command.subcommands?.length) {
    lines.push(
      `Subcommands (say ${code(`${prefix}help ${command.name} <subcommand>`)} for details):`,
    );
    lines.push(...command.subcommands.map((s) => subcommandLine(s, prefix)));
  }
  lines.push(...notes);
  if (command.examples?.length) {
    lines.push("Examples:");
    for (const e of command.examples)
      lines.push(`- ${code(e.startsWith(prefix) ? e : `${prefix}${e}`)}`);
  }
  return lines.join("\n");
}
