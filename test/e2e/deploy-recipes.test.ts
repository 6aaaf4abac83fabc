// The deployment recipes of deploy/ (and docs/deployment.md) as written: the systemd unit checked and its command run
// as a service user, the Dockerfile's and pm2's commands run in an installed project, each answering and stopping cleanly.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { killIfRunning, pingAndAwaitAnswer, watch } from "../helpers/process.js";
import { checkout, createScratchProject, type ScratchProject } from "../helpers/scratch-project.js";

/** A recipe as the installed package ships it (`node_modules/topicbot/deploy/`). */
const recipe = (name: string) =>
  readFile(join(project.dir, "node_modules", "topicbot", "deploy", name), "utf8");
/** The service user of the unit (`User=`), as Debian has it for tests: nobody. */
const SERVICE_UID = 65534;
const SERVICE_GID = 65534;

let sandbox: Sandbox;
let project: ScratchProject;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ heartbeatSeconds: 1 });
  project = await createScratchProject();
  // The service user reads the project (a checkout deployed by root, as under /srv).
  await chmod(dirname(project.dir), 0o755);
  await writeFile(
    join(project.dir, "bot.config.yaml"),
    [
      "server:",
      `  site: ${sandbox.url}`,
      `  email: ${sandbox.bot.email}`,
      "  apiKey: ${ZULIP_API_KEY}",
      "channels: [general]",
      "storage:",
      "  type: file",
      "  path: ${STATE_DIRECTORY:-data}/bot.json",
      "plugins: [ping]",
      "logging: { format: json }",
      "",
    ].join("\n"),
  );
}, 240_000);

afterAll(async () => {
  for (const child of children) await killIfRunning(child);
  await sandbox?.close();
  if (project) await rm(dirname(project.dir), { recursive: true, force: true });
});

/** Systemd's `Key=value` lines of a unit, by section; fails on what systemd would not parse as meant. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0 || !current) throw new Error(`line ${i + 1}: not Key=value in a section: ${line}`);
    const value = line.slice(eq + 1);
    // systemd has no inline comments: "30  # ..." is the value.
    if (/\s[#;]/.test(value))
      throw new Error(`line ${i + 1}: an inline comment is part of the value: ${line}`);
    const key = line.slice(0, eq);
    current.set(key, [...(current.get(key) ?? []), value]);
  }
  return sections;
}

/** The environment a unit or container gives the bot: the key from the EnvironmentFile, nothing of the test's. */
function serviceEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: "/nonexistent",
    NODE_ENV: "production",
    ZULIP_API_KEY: sandbox.bot.apiKey,
    ...extra,
  };
}

/** Runs `argv` as a service would, waits until the bot is ready, checks it answers, stops it with `signal`. */
async function runAnswerStop(
  argv: string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    uid?: number;
    gid?: number;
    signal: NodeJS.Signals;
    topic: string;
  },
) {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    uid: options.uid,
    gid: options.gid,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const stdout = watch(child.stdout!);
  const stderr = watch(child.stderr!);
  try {
    await stdout.waitFor(/"msg":"ready"/, 60_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nstderr:\n${stderr.text}`);
  }
  expect(await pingAndAwaitAnswer(sandbox, options.topic)).toBe("pong");
  const exited = once(child, "exit");
  child.kill(options.signal);
  const [code] = (await Promise.race([exited, sleep(30_000).then(() => [undefined])])) as [
    number | undefined,
  ];
  expect(code, `exit after ${options.signal}; stderr:\n${stderr.text}`).toBe(0);
  expect(stdout.text).toContain('"msg":"event queue deleted"');
  expect(stdout.text).not.toContain(sandbox.bot.apiKey);
  return { child, stdout, stderr };
}

it("docs/deployment.md shows each recipe exactly as deploy/ holds it", async () => {
  const docs = await readFile(join(checkout, "docs", "deployment.md"), "utf8");
  for (const name of ["topicbot.service", "Dockerfile", "ecosystem.config.cjs"])
    expect(docs, name).toContain(await recipe(name));
});

describe("the systemd unit", () => {
  it("parses as systemd reads it, and systemd-analyze verify accepts it (the old docs' unit: rejected)", async () => {
    const text = await recipe("topicbot.service");
    const unit = parseUnit(text);
    const service = unit.get("Service")!;
    expect(service.get("ExecStart")![0]).toMatch(
      /^\/usr\/bin\/node \/srv\/my-bot\/node_modules\/topicbot\/bin\/bot\.js start$/,
    );
    expect(service.get("EnvironmentFile")![0]).toMatch(/^-\//);
    expect(service.get("StateDirectory")).toEqual(["topicbot"]);
    expect(service.get("RestartPreventExitStatus")).toEqual(["2"]);
    expect(Number(service.get("TimeoutStopSec")![0])).toBeGreaterThan(10);
    expect(() => parseUnit("[Service]\nTimeoutStopSec=30   # longer than stopTimeoutMs\n")).toThrow(
      /inline comment/,
    );

    if (spawnSync("systemd-analyze", ["--version"]).error) return; // the parser above is the check then
    const dir = await mkdtemp(join(tmpdir(), "topicbot-unit-"));
    try {
      await writeFile(join(dir, "topicbot.service"), text);
      const ok = spawnSync("systemd-analyze", ["verify", join(dir, "topicbot.service")], {
        encoding: "utf8",
      });
      expect(ok.stderr.split("\n").filter((l) => l.includes("topicbot.service"))).toEqual([]);
      expect(ok.status).toBe(0);
      await writeFile(
        join(dir, "old.service"),
        text.replace(
          "TimeoutStopSec=30",
          "TimeoutStopSec=30                           # longer than stopTimeoutMs",
        ),
      );
      const old = spawnSync("systemd-analyze", ["verify", join(dir, "old.service")], {
        encoding: "utf8",
      });
      // systemd ignores the line (the stop timeout falls back to its default) and says so.
      expect(old.stderr).toMatch(
        /old\.service:\d+: Failed to parse time value, ignoring: 30 +# longer/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("its ExecStart, run as the service user with its StateDirectory, answers, reloads on SIGHUP, stops on SIGTERM", async () => {
    const unit = parseUnit(await recipe("topicbot.service")).get("Service")!;
    const at = (s: string) => s.replaceAll("/srv/my-bot", project.dir);
    const state = join(dirname(project.dir), "var-lib-topicbot");
    await mkdir(state, { mode: 0o700 });
    await chown(state, SERVICE_UID, SERVICE_GID);
    const argv = at(unit.get("ExecStart")![0]!).split(" ");
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: at(unit.get("WorkingDirectory")![0]!),
      env: serviceEnv({ STATE_DIRECTORY: state }),
      uid: SERVICE_UID,
      gid: SERVICE_GID,
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    await stdout.waitFor(/"msg":"ready"/, 60_000).catch((e: Error) => {
      throw new Error(`${e.message}\nstderr:\n${stderr.text}`);
    });
    expect(await pingAndAwaitAnswer(sandbox, "systemd")).toBe("pong");
    child.kill("SIGHUP");
    await stdout.waitFor(/"msg":"configuration reloaded"/, 30_000);
    expect(await pingAndAwaitAnswer(sandbox, "systemd after SIGHUP")).toBe("pong");
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code] = (await exited) as [number];
    expect(code).toBe(0);
    expect(stdout.text).toContain('"msg":"event queue deleted"');
    expect((await stat(join(state, "bot.json.delivery.jsonl"))).uid).toBe(SERVICE_UID);
  }, 120_000);

  it("without a writable state directory, bot check and bot start fail alike, exit 2, saying what to fix", async () => {
    const state = join(dirname(project.dir), "root-owned-state");
    await mkdir(state, { mode: 0o755 });
    const run = (command: string) =>
      spawnSync(process.execPath, [project.bin, command], {
        cwd: project.dir,
        env: serviceEnv({ STATE_DIRECTORY: state }),
        uid: SERVICE_UID,
        gid: SERVICE_GID,
        encoding: "utf8",
        timeout: 60_000,
      });
    const check = run("check");
    const start = run("start");
    const line = (text: string) => text.split("\n").find((l) => l.startsWith("error: "));
    expect(check.status, check.stderr).toBe(2);
    expect(start.status, start.stderr).toBe(2);
    expect(line(check.stderr)).toMatch(
      /storage\.path: cannot write in .*root-owned-state \(EACCES\).*chown/,
    );
    expect(line(start.stderr)).toBe(line(check.stderr));
    // Start-up errors are in the log too, as JSON like the rest.
    expect(JSON.parse(start.stdout.trim().split("\n").pop()!)).toMatchObject({
      level: 60,
      exitCode: 2,
    });
  }, 120_000);
});

describe("the Dockerfile", () => {
  it("runs node itself (exec form, no npx or shell), and that command answers and stops cleanly on SIGTERM", async () => {
    const text = await recipe("Dockerfile");
    const cmd = /^CMD (\[.*\])$/m.exec(text)?.[1];
    expect(cmd, "CMD in exec form").toBeDefined();
    const argv = JSON.parse(cmd!) as string[];
    expect(argv[0]).toBe("node");
    expect(argv.join(" ")).not.toMatch(/npx|sh -c/);
    expect(text).toMatch(/^USER node$/m);
    const workdir = /^WORKDIR (\S+)$/m.exec(text)![1]!;
    expect(text).toContain(`mkdir -p ${workdir}/data`);
    // WORKDIR is the project; the container's PID 1 is this command, signalled as `docker stop` does.
    await runAnswerStop([process.execPath, ...argv.slice(1)], {
      cwd: project.dir,
      env: serviceEnv(),
      signal: "SIGTERM",
      topic: "docker",
    });
  }, 120_000);
});

describe("the pm2 ecosystem file", () => {
  it("runs the bot's executable directly, and that answers and stops cleanly on pm2's SIGINT", async () => {
    const path = join(project.dir, "ecosystem.config.cjs");
    await writeFile(path, await recipe("ecosystem.config.cjs"));
    const { apps } = createRequire(import.meta.url)(path) as {
      apps: {
        script: string;
        args: string[];
        interpreter: string;
        cwd: string;
        kill_timeout: number;
      }[];
    };
    const app = apps[0]!;
    expect(app.interpreter).toBe("none");
    expect(app.cwd).toBe(project.dir);
    expect(app.kill_timeout).toBeGreaterThan(10_000);
    // With interpreter "none", pm2 spawns the script itself with its args; it stops with SIGINT.
    await runAnswerStop([join(app.cwd, app.script), ...app.args], {
      cwd: app.cwd,
      env: serviceEnv(),
      signal: "SIGINT",
      topic: "pm2",
    });
  }, 120_000);
});
