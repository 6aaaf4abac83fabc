// Every `bot ...` command in the shell blocks of README.md and docs/*.md names a real command of the built CLI and only options that command takes.
//
// A shell block is a ```sh, ```bash, ```shell or ```console block. Each of its lines (a leading `$ `
// and a trailing `# comment` dropped) is split at `&&`, `||`, `|` and `;`; a part that runs the CLI
// (`bot`, `npx bot`, `node .../bin/bot.js`) is checked against `bot <command> --help` of the built
// package: the command must exist (`Usage: bot <command>`) and each `--option` must be in its help.
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = join(root, "bin", "bot.js");
const run = promisify(execFile);

export interface ShellCommand {
  doc: string;
  line: number;
  /** The words after the CLI's name, quotes removed. */
  words: string[];
}

/** Splits a command line into words as a shell would for plain quoting ('...', "...", \x). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word = (word ?? "") + line.slice(i + 1, end === -1 ? undefined : end);
      i = end === -1 ? line.length : end;
    } else if (c === "\\" && i + 1 < line.length) word = (word ?? "") + line[++i];
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The CLI invocations in a Markdown text's shell blocks. */
export function extractShellCommands(doc: string, markdown: string): ShellCommand[] {
  const lines = markdown.split("\n");
  const out: ShellCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+)(sh|bash|shell|console)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(open[2]!); j++) {
      const text = lines[j]!.trim()
        .replace(/^\$\s+/, "")
        .replace(/\s#.*$/, "");
      for (const part of text.split(/&&|\|\||[|;]/)) {
        const words = shellWords(part.trim());
        while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) words.shift(); // FOO=bar bot ...
        let at = -1;
        if (words[0] === "bot") at = 1;
        else if (words[0] === "npx" && words[1] === "bot") at = 2;
        else if (words[0] === "node" && /(^|\/)bin\/bot\.js$/.test(words[1] ?? "")) at = 2;
        if (at > 0) out.push({ doc, line: j + 1, words: words.slice(at) });
      }
    }
    i = j;
  }
  return out;
}

/** `bot <command...> --help`, cached: the command's words and the long options it takes, or undefined when there is no such command. */
const helps = new Map<string, Promise<{ options: Set<string> } | undefined>>();
function helpOf(command: string[]): Promise<{ options: Set<string> } | undefined> {
  const key = command.join(" ");
  let help = helps.get(key);
  if (!help) {
    help = run(process.execPath, [bin, ...command, "--help"], { timeout: 30_000 }).then(
      ({ stdout }) =>
        stdout.startsWith(`Usage: bot ${key} `) || stdout.startsWith(`Usage: bot ${key}\n`)
          ? { options: new Set(stdout.match(/--[a-z][a-z0-9-]*/g) ?? []) }
          : undefined,
      () => undefined,
    );
    helps.set(key, help);
  }
  return help;
}

/** What is wrong with one invocation, or undefined. */
async function problemOf(command: ShellCommand): Promise<string | undefined> {
  const words = command.words;
  if (words.length === 0 || words[0]!.startsWith("-")) return undefined; // `bot --version`
  // The longest run of plain words that names a command (`cluster status`, then `cluster`).
  let named = words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w));
  if (named === -1) named = words.length;
  for (let n = named; n >= 1; n--) {
    const help = await helpOf(words.slice(0, n));
    if (!help) continue;
    const unknown = words
      .slice(n)
      .filter((w) => w.startsWith("--"))
      .map((w) => w.replace(/=.*$/, ""))
      .filter((option) => !help.options.has(option));
    return unknown.length > 0
      ? `bot ${words.slice(0, n).join(" ")} takes no ${unknown.join(", ")}`
      : undefined;
  }
  return `bot ${words[0]} is not a command`;
}

describe("shell blocks of the docs", () => {
  it("reads a command line as a shell would", () => {
    expect(shellWords(`send --to ci --topic "widgets" 'Build #3' a\\ b`)).toEqual([
      "send",
      "--to",
      "ci",
      "--topic",
      "widgets",
      "Build #3",
      "a b",
    ]);
    const md = [
      "```sh",
      "$ npx bot init ../my-bot && cd ../my-bot   # a comment",
      "ZULIP_SITE=x node node_modules/topicbot/bin/bot.js check",
      "```",
    ].join("\n");
    expect(extractShellCommands("x.md", md).map((c) => c.words)).toEqual([
      ["init", "../my-bot"],
      ["check"],
    ]);
  });

  it("finds a command that does not exist and an option a command does not take", async () => {
    expect(await problemOf({ doc: "x.md", line: 1, words: ["strat"] })).toBe(
      "bot strat is not a command",
    );
    expect(await problemOf({ doc: "x.md", line: 1, words: ["send", "--channel", "x"] })).toBe(
      "bot send takes no --channel",
    );
    expect(await problemOf({ doc: "x.md", line: 1, words: ["cluster", "status"] })).toBeUndefined();
  }, 60_000);

  it("name only commands and options of the built CLI", async () => {
    const docs = ["README.md", ...(await readdir(join(root, "docs"))).map((f) => `docs/${f}`)];
    const commands: ShellCommand[] = [];
    for (const doc of docs.filter((d) => d.endsWith(".md")))
      commands.push(...extractShellCommands(doc, await readFile(join(root, doc), "utf8")));
    expect(commands.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const command of commands) {
      const problem = await problemOf(command);
      if (problem) problems.push(`${command.doc}:${command.line}: ${problem}`);
    }
    expect(problems).toEqual([]);
  }, 180_000);
});
