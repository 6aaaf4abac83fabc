// Every TypeScript and JavaScript block in README.md and docs/*.md is type-checked against the built package, and the ones that are tests run.
//
// How a block is read (write docs to match):
// - A block with `import` or `export` is a module. Its first line may name its file
//   (`// plugins/hello/index.ts`, `// plugins/shout/index.js`); blocks of one document share a folder, so a test imports the
//   plugin shown before it with "./index.js" (an unnamed block that exports a plugin is the
//   document's `index.ts`). A module that imports from "vitest" is a test and
//   runs under vitest, and so does one that imports "topicbot/testing".
// - A ```js block is checked as JavaScript (`checkJs`, as an editor does), with the same
//   settings: the types come from topicbot's declarations.
// - A block without is a fragment: it is type-checked inside an async function where `bot`
//   (PluginApi), `ctx` (CommandContext), `t` (TestBot) and `config` (any) are in scope, with
//   topicbot's `arg`, `atLeast`, `definePlugin`, `formatDuration`, `MessageEditWindowError`, `z` and vitest's functions.
// - `<!-- not-runnable: reason -->` on the line before the opening fence: the block is shown,
//   never checked (say why: a fragment of a command above, a sketch with placeholders).
// - `<!-- transcript: remind, triage -->` before a plain ``` block: a conversation, run as a test
//   against a harness bot with those plugins (built-in names, or `./file.ts` for a module block of
//   the same document). Each line that starts with `!` is said; the lines under it, up to the next
//   `!` line, are the bot's one answer, word for word (an empty answer means silence).
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** Inside the checkout (git-ignored), so "topicbot" resolves to the built package and "vitest" to ours. */
const scratch = join(root, ".docs-code");

export interface DocBlock {
  doc: string;
  line: number;
  text: string;
  /** Why the block is not checked, from its `not-runnable` marker. */
  notRunnable?: string;
  /** A ```js / ```javascript block. */
  javascript?: boolean;
}

/** The ```ts / ```typescript and ```js / ```javascript blocks of a Markdown text, with the marker before each. */
export function extractBlocks(doc: string, markdown: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+)(ts|typescript|js|javascript)\b/.exec(lines[i]!);
    if (!open) continue;
    const marker = /<!--\s*not-runnable:\s*(.*?)\s*-->/.exec(lines[i - 1] ?? "");
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(open[2]!); j++)
      body.push(lines[j]!.slice(open[1]!.length));
    blocks.push({
      doc,
      line: i + 1,
      text: body.join("\n"),
      notRunnable: marker?.[1],
      javascript: open[3]!.startsWith("j"),
    });
    i = j;
  }
  return blocks;
}

export interface Transcript {
  doc: string;
  line: number;
  /** Built-in plugin names, and `./file.ts` module blocks of the same document. */
  plugins: string[];
  steps: [say: string, answer: string | null][];
}

/** The plain blocks marked `<!-- transcript: plugins -->`, as conversations. */
export function extractTranscripts(doc: string, markdown: string): Transcript[] {
  const lines = markdown.split("\n");
  const transcripts: Transcript[] = [];
  for (let i = 1; i < lines.length; i++) {
    const marker = /<!--\s*transcript:\s*(.*?)\s*-->/.exec(lines[i - 1]!);
    const open = /^(\s*)(```+)(text)?\s*$/.exec(lines[i]!);
    if (!marker || !open) continue;
    const steps: Transcript["steps"] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(open[2]!); j++) {
      const line = lines[j]!.slice(open[1]!.length);
      if (line.startsWith("!")) steps.push([line, null]);
      else if (steps.length > 0) {
        const last = steps[steps.length - 1]!;
        last[1] = last[1] === null ? line : `${last[1]}\n${line}`;
      }
    }
    const plugins = marker[1]!
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    transcripts.push({ doc, line: i + 1, plugins, steps });
    i = j;
  }
  return transcripts;
}

/** A vitest file that says a transcript's lines to a harness bot and expects its answers. */
function transcriptTest(transcript: Transcript): string {
  const imports = transcript.plugins.map((name, n) => {
    const from = name.startsWith("./")
      ? name.replace(/\.ts$/, ".js")
      : join(root, "dist", "plugins", name, "index.js");
    return `import plugin${n} from ${JSON.stringify(from)};`;
  });
  const plugins = transcript.plugins.map((_, n) => `plugin${n}`).join(", ");
  return `${imports.join("\n")}
import { createTestBot } from "topicbot/testing";
import { it } from "vitest";

it(${JSON.stringify(`${transcript.doc}:${transcript.line} answers as the transcript shows`)}, async () => {
  const t = await createTestBot({ plugins: [${plugins}] });
  try {
    await t.dialog(${JSON.stringify(transcript.steps)});
  } finally {
    await t.close();
  }
});
`;
}

const isModule = (text: string): boolean => /^\s*(import|export)\s/m.test(text);

const FRAGMENT_PRELUDE = `import { arg, atLeast, definePlugin, formatDuration, MessageEditWindowError, z } from "topicbot";
import type { CommandContext, PluginApi } from "topicbot";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TestBot } from "topicbot/testing";
declare const bot: PluginApi;
declare const ctx: CommandContext;
declare const t: TestBot;
declare const config: any;
export async function fragment(): Promise<void> {
`;

interface Written {
  block: DocBlock;
  file: string;
  /** Lines the wrapper adds before the block's first line. */
  offset: number;
  test: boolean;
}

async function docs(): Promise<string[]> {
  const names = (await readdir(join(root, "docs"))).filter((n) => n.endsWith(".md")).sort();
  return ["README.md", ...names.map((n) => `docs/${n}`)];
}

describe("code blocks in README.md and docs/*.md", () => {
  const written: Written[] = [];
  const transcripts: Transcript[] = [];
  let skipped: DocBlock[] = [];
  beforeAll(async () => {
    await rm(scratch, { recursive: true, force: true });
    for (const doc of await docs()) {
      const markdown = await readFile(join(root, doc), "utf8");
      const blocks = extractBlocks(doc, markdown);
      skipped = [...skipped, ...blocks.filter((b) => b.notRunnable !== undefined)];
      const folder = join(scratch, doc.replace(/\.md$/, "").replace(/[/\\]/g, "_"));
      let index = false;
      for (const [n, block] of blocks.entries()) {
        if (block.notRunnable !== undefined) continue;
        const module = isModule(block.text);
        const plugin: boolean =
          module && /export default definePlugin\(/.test(block.text) && !index;
        index ||= plugin;
        const named =
          /^\/\/ ([\w./-]+\.[jt]s)\s*$/.exec(block.text.split("\n")[0]!)?.[1] ??
          (plugin ? (block.javascript ? "index.js" : "index.ts") : undefined);
        const test = module && /from "(vitest|topicbot\/testing)"/.test(block.text);
        const ext = module && block.javascript ? "js" : "ts";
        const name = named ?? `block-${n + 1}${test ? ".test" : ""}.${ext}`;
        const file = join(
          folder,
          named && test && !/\.test\.[jt]s$/.test(named) ? `${name}.test.${ext}` : name,
        );
        const text = module ? block.text : `${FRAGMENT_PRELUDE}${block.text}\n}\n`;
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, text);
        written.push({
          block,
          file,
          offset: module ? 0 : FRAGMENT_PRELUDE.split("\n").length - 1,
          test,
        });
      }
      for (const transcript of extractTranscripts(doc, markdown)) {
        const file = join(folder, `transcript-${transcript.line}.test.ts`);
        await mkdir(folder, { recursive: true });
        await writeFile(file, transcriptTest(transcript));
        transcripts.push(transcript);
        written.push({
          block: { doc, line: transcript.line, text: "" },
          file,
          offset: 0,
          test: true,
        });
      }
    }
  });
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it("finds blocks, and every not-runnable marker says why", () => {
    expect(written.length).toBeGreaterThan(5);
    expect(transcripts.length).toBeGreaterThan(0);
    for (const transcript of transcripts)
      expect(transcript.steps.length, `${transcript.doc}:${transcript.line}`).toBeGreaterThan(0);
    for (const block of skipped)
      expect(block.notRunnable, `${block.doc}:${block.line}`).not.toBe("");
  });

  it("type-checks every block against the built package", () => {
    const program = ts.createProgram(
      written.map((w) => w.file),
      {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        // As the tsconfig.json `bot init` writes (docs/getting-started.md), plus JavaScript.
        verbatimModuleSyntax: true,
        allowJs: true,
        checkJs: true,
        types: ["node"],
      },
    );
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
      const w = written.find((x) => x.file === d.file?.fileName);
      if (!w || !d.file || d.start === undefined) return text;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${w.block.doc}:${w.block.line + 1 + line - w.offset}: ${text}`;
    });
    expect(problems).toEqual([]);
  }, 120_000);

  it("runs the blocks that are tests", async () => {
    const tests = written.filter((w) => w.test).map((w) => w.file);
    expect(tests.length).toBeGreaterThan(0);
    const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
    await writeFile(
      join(scratch, "vitest.config.mjs"),
      'export default { test: { include: ["**/*.test.{ts,js}"], testTimeout: 20000 } };\n',
    );
    const result = await promisify(execFile)(
      process.execPath,
      [
        vitest,
        "run",
        "--root",
        scratch,
        "--config",
        join(scratch, "vitest.config.mjs"),
        "--dir",
        scratch,
        ...tests.map((f) => f.slice(scratch.length + 1)),
      ],
      {
        cwd: scratch,
        env: { ...process.env, NODE_OPTIONS: "", FORCE_COLOR: "0", NO_COLOR: "1" },
        timeout: 120_000,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: `${error.stdout ?? ""}${error.stderr ?? ""}\n(vitest failed)`,
      stderr: "",
    }));
    expect(result.stdout).not.toContain("(vitest failed)");
    expect(result.stdout).toMatch(/Tests\s+\d+ passed/);
  }, 150_000);
});
