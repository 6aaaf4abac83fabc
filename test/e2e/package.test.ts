// The author's path, end to end: the packed tarball in a `bot init` project, TypeScript plugins tested there and run by its own bot check, start and dev.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/client/client.js";
import { cleanEnv, spawnDev, watch } from "../helpers/process.js";
import { createScratchProject, type ScratchProject } from "../helpers/scratch-project.js";

const run = promisify(execFile);

/**
 * A plugin that depends on topicbot's module identity: `arg.*` arguments, `instanceof ApiError`
 * (the class of "topicbot" and of "topicbot/client", two entries of the bundle, must be one),
 * plus storage, a dialog (`ctx.ask`) and a scheduled message.
 */
const TASKS = `// tasks: a to-do list, a question, a scheduled note and an API error, in TypeScript.
import { ApiError, arg, definePlugin, z } from "topicbot";
import { ApiError as ClientApiError } from "topicbot/client";

export default definePlugin({
  name: "tasks",
  description: "A shared to-do list.",
  config: z.object({ noun: z.string().default("task") }),
  setup(bot, config) {
    bot.command(
      "add",
      { description: "Add a task", args: { times: arg.number(), what: arg.rest() } },
      async (ctx) => {
        const { times, what } = ctx.command.args;
        const list: string[] = (await bot.storage.get<string[]>("tasks")) ?? [];
        list.push(\`\${times}x \${what}\`);
        await bot.storage.set("tasks", list);
        await ctx.reply(\`Added \${config.noun} \${list.length}: \${times}x \${what}\`);
      },
    );
    bot.command("name", { description: "Ask a name" }, async (ctx) => {
      const answer = await ctx.ask("What's your name?", { timeoutMs: 20_000 });
      await ctx.reply(answer ? \`Nice to meet you, \${answer.text}.\` : "No answer.");
    });
    bot.command("later", { description: "Schedule a note" }, async (ctx) => {
      const { scheduledMessageId } = await ctx.schedule("a note from the past", "in 2 hours");
      await ctx.reply(\`Scheduled \${scheduledMessageId > 0 ? "a note" : "nothing"}.\`);
    });
    bot.command("lost", { description: "Post to a channel that does not exist" }, async (ctx) => {
      try {
        await ctx.api.messages.send({ type: "channel", to: "no-such-channel", topic: "x", content: "x" });
        await ctx.reply("sent?");
      } catch (error) {
        const one = error instanceof ApiError && error instanceof ClientApiError;
        await ctx.reply(one ? \`ApiError \${error.code}\` : \`not the one ApiError: \${String(error)}\`);
      }
    });
  },
});
`;

/** The same plugin's harness test, run by vitest in the scratch project. */
const TASKS_TEST = `// The tasks plugin against topicbot's embedded server.
import { afterEach, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import tasks from "./index.js";

let t: TestBot | undefined;
afterEach(async () => {
  await t?.close();
});

it("adds with typed arguments and remembers", async () => {
  t = await createTestBot({ plugins: [tasks] });
  await t.send("!add 2 buy milk");
  expect((await t.reply()).content).toBe("Added task 1: 2x buy milk");
});

it("asks, schedules and sees ApiError as ApiError", async () => {
  t = await createTestBot({ plugins: [tasks] });
  await t.send("!name");
  expect((await t.reply()).content).toBe("What's your name?");
  await t.send("Mia");
  expect((await t.reply()).content).toBe("Nice to meet you, Mia.");
  await t.send("!later");
  expect((await t.reply()).content).toBe("Scheduled a note.");
  await t.send("!lost");
  expect((await t.reply()).content).toBe("ApiError STREAM_DOES_NOT_EXIST");
});
`;

const CONFIG = `prefix: "!"
channels: [general]
storage: { type: file, path: data/bot.json }
plugins:
  - ping
  - ./plugins/tasks:
      noun: chore
`;

/** Runs a Node script in the project to completion (bounded); exit code and all output. */
async function node(project: ScratchProject, args: string[], timeoutMs = 90_000) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, {
      cwd: project.dir,
      env: { ...cleanEnv(), NODE_OPTIONS: "", FORCE_COLOR: "0", CI: "1" },
      timeout: timeoutMs,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

describe("the packed package in a bot init project", () => {
  let project: ScratchProject;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    project = await createScratchProject();
    await mkdir(join(project.dir, "plugins", "tasks"), { recursive: true });
    await writeFile(join(project.dir, "plugins", "tasks", "index.ts"), TASKS);
    await writeFile(join(project.dir, "plugins", "tasks", "tasks.test.ts"), TASKS_TEST);
    await writeFile(join(project.dir, "bot.config.yaml"), CONFIG);
  }, 180_000);
  afterEach(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });
  afterAll(async () => {
    if (project) await rm(dirname(project.dir), { recursive: true, force: true });
  });

  it("passes its plugins' harness tests and type check", async () => {
    const modules = join(project.dir, "node_modules");
    const test = await node(project, [join(modules, "vitest", "vitest.mjs"), "run"]);
    expect(test.output).toMatch(/4 passed/);
    expect(test.code).toBe(0);
    const types = await node(project, [join(modules, "typescript", "bin", "tsc"), "-p", "."]);
    expect(types.output).toBe("");
    expect(types.code).toBe(0);
  }, 180_000);

  it("bot check loads the TypeScript plugins and lists their commands", async () => {
    const check = await node(project, [project.bin, "check"]);
    expect(check.output).toContain("tasks: !add, !name, !later, !lost");
    expect(check.code).toBe(0);
  }, 90_000);

  it("bot start answers a human over HTTP the way the tests did", async () => {
    child = spawn(process.execPath, [project.bin, "start"], {
      cwd: project.dir,
      env: { ...cleanEnv(), NODE_OPTIONS: "", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    await stdout.waitFor(/"msg":"ready"/, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\nstderr:\n${stderr.text}`);
    });
    const [, url] = await stderr.waitFor(/embedded sandbox at (http:\/\/127\.0\.0\.1:\d+)/, 5_000);
    const [, email, apiKey] = await stderr.waitFor(/email (\S+)\s+API key (\w+)/, 5_000);
    const human = createClient({ site: url!, email: email!, apiKey: apiKey! });
    try {
      const { queue_id } = await human.events.register({ event_types: ["message"] });
      let lastEventId = -1;
      const nextAnswer = async (): Promise<string> => {
        for (let polls = 0; polls < 10; polls++) {
          const { events } = await human.events.get(
            { queue_id: queue_id!, last_event_id: lastEventId },
            { timeoutMs: 5_000 },
          );
          for (const event of events) {
            lastEventId = Math.max(lastEventId, event.id);
            const message = event.message as
              { sender_email?: string; content?: string } | undefined;
            if (message && message.sender_email !== email) return message.content ?? "";
          }
        }
        throw new Error(`no answer; the bot printed:\n${stdout.text}\n${stderr.text}`);
      };
      const say = (content: string) =>
        human.messages.send({ type: "channel", to: "general", topic: "e2e", content });
      await say("!add 3 water the plants");
      expect(await nextAnswer()).toBe("Added chore 1: 3x water the plants");
      await say("!name");
      expect(await nextAnswer()).toBe("What's your name?");
      await say("Mia");
      expect(await nextAnswer()).toBe("Nice to meet you, Mia.");
      await say("!later");
      expect(await nextAnswer()).toBe("Scheduled a note.");
      await say("!lost");
      expect(await nextAnswer()).toBe("ApiError STREAM_DOES_NOT_EXIST");
    } finally {
      await human.close();
    }
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
  }, 120_000);

  it("bot dev runs the same plugins through pipes", async () => {
    const dev = spawnDev(project.bin, project.dir);
    child = dev.child;
    const { stdout, fail } = dev;
    await stdout.waitFor(/the bot runs ping, tasks\./, 60_000).catch(fail);
    child.stdin!.write("!add 1 dev things\n");
    await stdout
      .waitFor(/\(tasks › command add\): Added chore \d+: 1x dev things/, 20_000)
      .catch(fail);
    child.stdin!.write("!lost\n");
    await stdout
      .waitFor(/\(tasks › command lost\): ApiError STREAM_DOES_NOT_EXIST/, 20_000)
      .catch(fail);
    child.stdin!.write("/quit\n");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
  }, 120_000);
});
