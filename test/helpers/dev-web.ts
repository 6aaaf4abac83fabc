// Test helper: a throwaway bot project and `bot dev --web` started in it as a user starts it (the built bin).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bin, cleanEnv, watch } from "./process.js";

/**
 * A plugin in plain TypeScript with no imports (it loads from any folder): `!deploy` for members
 * and up, counting deploys in storage, and an hourly cron job. `word` is what tests edit.
 */
export const deployPlugin = (
  word: string,
): string => `// deploy: the plugin the console test edits while bot dev runs.
const word: string = ${JSON.stringify(word)};
export default {
  name: "deploy",
  description: "Deploys, for members and up; counts them.",
  setup(bot: any) {
    bot.command(
      "deploy",
      { description: "Deploy the app", roles: ["owner", "administrator", "moderator", "member"] },
      async (ctx: any) => {
        const n = ((await bot.storage.get("deploys")) ?? 0) + 1;
        await bot.storage.set("deploys", n);
        await ctx.reply(\`\${word} #\${n}\`);
      },
    );
    bot.cron("0 * * * *", () => bot.api.messages.send({ type: "channel", to: "general", topic: "cron", content: "hourly tick" }), { name: "hourly" });
  },
};
`;

/** The running `bot dev --web`: its console URL, the plugin file, what it printed. */
export interface DevWeb {
  dir: string;
  url: string;
  pluginFile: string;
  output(): string;
  stop(): Promise<void>;
}

/** Writes a project (ping, remind, ./deploy.ts) and starts `bot dev --web` in it; waits (bounded) for its URL. */
export async function startDevWeb(timeoutMs = 30_000): Promise<DevWeb> {
  const dir = await mkdtemp(join(tmpdir(), "topicbot-web-"));
  await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
  await writeFile(
    join(dir, "bot.config.yaml"),
    "plugins:\n  - ping\n  - remind\n  - ./deploy.ts\n",
  );
  const pluginFile = join(dir, "deploy.ts");
  await writeFile(pluginFile, deployPlugin("deployed"));
  const child: ChildProcess = spawn(process.execPath, [bin, "dev", "--web"], {
    cwd: dir,
    env: { ...cleanEnv(), NODE_OPTIONS: "", FORCE_COLOR: "0", TZ: "UTC" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout = watch(child.stdout!);
  const stderr = watch(child.stderr!);
  const output = () => `${stdout.text}${stderr.text ? `\n[stderr]\n${stderr.text}` : ""}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const [url] = await stdout.waitFor(/http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/, timeoutMs);
    return { dir, url, pluginFile, output, stop };
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output()}`);
  }
}
