// What `npm pack` ships: every entry point, and every module and declaration they reach, so `import ... from "topicbot/x"` and its types resolve in a user's project.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { checkout } from "../helpers/scratch-project.js";

const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

interface PackageJson {
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
}

/** Relative specifiers a module or declaration file imports or re-exports (TypeScript's scanner: text in strings is not an import). */
function relativeImports(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith("./") || name.startsWith("../"));
}

/** A Markdown text without its fenced code blocks and inline code spans. */
function proseOf(markdown: string): string {
  let fence: string | undefined;
  const prose: string[] = [];
  for (const line of markdown.split("\n")) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (fence !== undefined && marker?.startsWith(fence)) fence = undefined;
    else if (fence === undefined) prose.push(line.replace(/`[^`]*`/g, ""));
  }
  return prose.join("\n");
}

describe("the packed file list", () => {
  let files: Set<string>;
  let pkg: PackageJson;
  beforeAll(async () => {
    const { stdout } = await run(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: checkout,
      env: { ...process.env, NODE_OPTIONS: "", npm_config_update_notifier: "false" },
    });
    const [packed] = JSON.parse(stdout) as [{ files: { path: string }[] }];
    files = new Set(packed.files.map((f) => f.path));
    pkg = JSON.parse(readFileSync(join(checkout, "package.json"), "utf8")) as PackageJson;
  }, 60_000);

  it("holds every export's code and types, the bin, and everything they import", () => {
    const entries = Object.values(pkg.exports).flatMap((target) =>
      typeof target === "string" ? [target] : Object.values(target),
    );
    const todo = [...entries, ...Object.values(pkg.bin)].map((p) => normalize(p));
    const missing: string[] = [];
    const seen = new Set<string>();
    // Bounded by the package's own files: each is walked once.
    while (todo.length > 0) {
      const file = todo.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      if (!files.has(file)) {
        missing.push(file);
        continue;
      }
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      for (const specifier of relativeImports(readFileSync(join(checkout, file), "utf8"))) {
        const target = normalize(join(dirname(file), specifier));
        todo.push(file.endsWith(".d.ts") ? target.replace(/\.js$/, ".d.ts") : target);
      }
    }
    expect(missing).toEqual([]);
    expect(seen.size).toBeGreaterThan(50);
  });

  it("holds what is read by path, not imported: built-in plugins, the dev console, docs, the schema", () => {
    for (const file of [
      "dist/plugins/ping/index.js",
      "dist/web/app.js",
      "README.md",
      "bot.config.schema.json",
      "docs/getting-started.md",
    ])
      expect(files.has(file), file).toBe(true);
  });

  it("holds every file the shipped Markdown links to or names as docs/...", () => {
    const missing: string[] = [];
    for (const doc of [...files].filter((f) => f.endsWith(".md"))) {
      // Code (fenced blocks and inline spans) shows link syntax; it links nothing.
      const text = proseOf(readFileSync(join(checkout, doc), "utf8"));
      // [text](target) and ![alt](target) with a relative target, and `docs/x.md` named in prose.
      const linked = [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/i.test(target))
        .map((target) => normalize(join(dirname(doc), target)));
      const named = [...text.matchAll(/\bdocs\/[\w.-]+\.(?:md|png)\b/g)].map((m) => m[0]);
      for (const file of [...linked, ...named])
        if (!files.has(file)) missing.push(`${doc}: ${file}`);
    }
    expect(missing).toEqual([]);
  });

  it("holds the files its own lifecycle scripts run, so an install from the tarball or a git URL runs them", () => {
    const scripts = (pkg as { scripts?: Record<string, string> }).scripts ?? {};
    for (const name of ["prepare", "preinstall", "install", "postinstall"]) {
      const script = scripts[name];
      if (script === undefined) continue;
      for (const [, file] of script.matchAll(/\bnode\s+(\S+\.m?js)\b/g))
        expect(files.has(normalize(file!)), `${name}: ${file}`).toBe(true);
    }
  });
});
