// A bot in a `"type": "commonjs"` project (what `npm init -y` writes): its TypeScript and CommonJS plugins share the running topicbot.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bin, spawnDev } from "../helpers/process.js";
import { checkout } from "../helpers/scratch-project.js";

/** ES-module syntax in a .ts file of a CommonJS package: tsx compiles it to CommonJS. */
const TASKS = `import { ApiError, arg, definePlugin, z } from "topicbot";

export default definePlugin({
  name: "tasks",
  description: "Typed arguments and ApiError from a CommonJS scope.",
  config: z.object({ noun: z.string().default("task") }),
  setup(bot, config) {
    bot.command(
      "add",
      { description: "Add a task", args: { times: arg.number(), what: arg.rest() } },
      (ctx) => ctx.reply(\`Added \${config.noun}: \${ctx.command.args.times}x \${ctx.command.args.what}\`),
    );
    bot.command("lost", { description: "Post to a channel that does not exist" }, async (ctx) => {
      try {
        await ctx.api.messages.send({ type: "channel", to: "no-such-channel", topic: "x", content: "x" });
      } catch (error) {
        await ctx.reply(error instanceof ApiError ? \`ApiError \${error.code}\` : \`not an ApiError: \${String(error)}\`);
      }
    });
  },
});
`;

/** A JavaScript plugin written in CommonJS, loaded after the TypeScript one registered tsx. */
const LEGACY = `const { arg, definePlugin } = require("topicbot");

module.exports = definePlugin({
  name: "legacy",
  description: "A CommonJS plugin.",
  setup(bot) {
    bot.command("twice", { description: "Doubles", args: { n: arg.integer() } }, (ctx) =>
      ctx.reply(String(ctx.command.args.n * 2)),
    );
  },
});
`;

describe("a bot in a CommonJS project", () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-cjs-"));
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "cjs-bot", version: "1.0.0", type: "commonjs" }),
    );
    // topicbot installed the way `file:` dependencies are: a link to the package.
    await mkdir(join(dir, "node_modules"));
    await symlink(checkout, join(dir, "node_modules", "topicbot"), "dir");
    await mkdir(join(dir, "plugins", "tasks"), { recursive: true });
    await mkdir(join(dir, "plugins", "legacy"), { recursive: true });
    await writeFile(join(dir, "plugins", "tasks", "index.ts"), TASKS);
    await writeFile(join(dir, "plugins", "legacy", "index.js"), LEGACY);
    await writeFile(
      join(dir, "bot.config.yaml"),
      "plugins:\n  - ./plugins/tasks:\n      noun: chore\n  - ./plugins/legacy\n",
    );
  });
  afterEach(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("runs its TypeScript and CommonJS plugins on the one topicbot (arg.* and ApiError recognised)", async () => {
    const dev = spawnDev(bin, dir);
    child = dev.child;
    const { stdout, fail } = dev;
    await stdout.waitFor(/the bot runs tasks, legacy\./, 30_000).catch(fail);
    child.stdin!.write("!add 2 buy milk\n");
    await stdout.waitFor(/\(tasks › command add\): Added chore: 2x buy milk/, 20_000).catch(fail);
    child.stdin!.write("!lost\n");
    await stdout
      .waitFor(/\(tasks › command lost\): ApiError STREAM_DOES_NOT_EXIST/, 20_000)
      .catch(fail);
    child.stdin!.write("!twice 21\n");
    await stdout.waitFor(/\(legacy › command twice\): 42/, 20_000).catch(fail);
    child.stdin!.write("/quit\n");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
  }, 90_000);
});
