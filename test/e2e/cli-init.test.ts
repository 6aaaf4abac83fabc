import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";

const checkout = fileURLToPath(new URL("../..", import.meta.url));

function captured() {
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  return {
    lines,
    out: {
      stdout: (l: string) => lines.stdout.push(l),
      stderr: (l: string) => lines.stderr.push(l),
    },
  };
}

/** Runs a Node script to completion (bounded), returning its exit code and output. */
async function run(args: string[], cwd: string, timeoutMs: number) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, NODE_OPTIONS: "", FORCE_COLOR: "0", CI: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

describe("bot init", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("scaffolds a project whose own test and type check pass against this checkout", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-init-"));
    const project = join(dir, "standup bot");
    const { lines, out } = captured();
    expect(await main(["init", project], out)).toBe(0);
    expect(lines.stdout.join("\n")).toContain("plugins/hello/hello.test.ts");

    const pkg = JSON.parse(await readFile(join(project, "package.json"), "utf8")) as {
      name: string;
      dependencies: Record<string, string>;
    };
    expect(pkg.name).toBe("standup-bot");
    // Run from a clone, so the project depends on this clone itself, by a relative path.
    expect(pkg.dependencies.topicbot).toBe(`file:${relative(project, checkout)}`);
    const config = await readFile(join(project, "bot.config.yaml"), "utf8");
    expect(config.split("\n")[0]).toBe(
      "# yaml-language-server: $schema=./node_modules/topicbot/bot.config.schema.json",
    );

    // Install offline: this checkout as `topicbot`, and its own test tools.
    const modules = join(project, "node_modules");
    await mkdir(join(modules, "@types"), { recursive: true });
    await symlink(checkout, join(modules, "topicbot"), "dir");
    for (const dep of ["vitest", "typescript", "@types/node"])
      await symlink(join(checkout, "node_modules", dep), join(modules, dep), "dir");

    const test = await run([join(modules, "vitest", "vitest.mjs"), "run"], project, 60_000);
    expect(test.output).toMatch(/2 passed/);
    expect(test.code).toBe(0);
    const types = await run(
      [join(modules, "typescript", "bin", "tsc"), "-p", "."],
      project,
      60_000,
    );
    expect(types.output).toBe("");
    expect(types.code).toBe(0);
    // The config it wrote is valid, plugins and settings included.
    const check = captured();
    expect(
      await main(["check", "-c", join(project, "bot.config.yaml")], check.out),
      check.lines.stderr.join("\n"),
    ).toBe(0);
    expect(check.lines.stdout.join("\n")).toContain("hello: !hello");
  }, 120_000);

  it("writes nothing over existing files unless --force", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-init-"));
    expect(await main(["init", dir], captured().out)).toBe(0);
    const again = captured();
    expect(await main(["init", dir], again.out)).toBe(1);
    expect(again.lines.stderr.join("\n")).toMatch(
      /already has package\.json, .*nothing was written \(use --force to overwrite\)/,
    );
    expect(await main(["init", dir, "--force"], captured().out)).toBe(0);
  });
});
