// Chaos: hung handlers in real `bot start` processes: aborted at their limit, then poison messages quarantined across SIGKILLs.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, killIfRunning, runBot, watch } from "../helpers/process.js";
import { addUsers, fileStoreConfig, sendSurely, waitUntil } from "./helpers.js";

/** `!hang` never returns and ignores ctx.signal; `!echo` answers. A plain object: the temp dir cannot import topicbot. */
const PLUGIN = `export default {
  name: "hang",
  setup(bot) {
    bot.command("hang", { description: "Never returns" }, () => new Promise(() => {}));
    bot.command("echo", { description: "Answers" }, (ctx) => ctx.reply("echo " + ctx.message.id));
  },
};
`;

/** 4 s limits: the half-time mark, where an overrun is counted (and written), comes at 2 s. */
const LIMIT_MS = 4_000;
const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

describe("chaos: eight hung handlers (the default concurrency) in real processes", () => {
  let sandbox: Sandbox | undefined;
  let dir: string | undefined;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    await killIfRunning(child);
    await sandbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("leave the bot answering other topics; poison messages killed thrice are quarantined, and the restart answers fresh commands", async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 1 });
    const sb = sandbox;
    dir = await mkdtemp(join(tmpdir(), "topicbot-hung-"));
    await writeFile(join(dir, "hang.mjs"), PLUGIN);
    await writeFile(
      join(dir, "bot.config.yaml"),
      fileStoreConfig(sb, "hang.mjs") + `handlers: { timeoutMs: ${LIMIT_MS}, maxFailures: 3 }\n`,
    );
    const [user] = addUsers(sb, 1);
    const start = () => {
      child = spawn(process.execPath, [bin, "start", "--config", "bot.config.yaml"], {
        cwd: dir,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      return { stdout: watch(child.stdout!), stderr: watch(child.stderr!) };
    };
    const answers = (pattern: RegExp) =>
      sb.realm.messages.filter((m) => m.senderId === sb.bot.userId && pattern.test(m.content));
    const journal = join(dir, "data", "bot.json.delivery.jsonl");
    /** The newest watermark in the journal. */
    const watermark = (): number => {
      const marks = readFileSync(journal, "utf8")
        .split("\n")
        .filter((l) => l.startsWith('{"w"'));
      const last = marks.at(-1);
      return last ? (JSON.parse(last) as { w: { lastHandledId: number } }).w.lastHandledId : -1;
    };
    const hangs = async () => {
      const ids: number[] = [];
      for (let i = 0; i < 8; i++) ids.push(await sendSurely(user!, `stuck ${i}`, "!hang"));
      return ids;
    };

    // 1. Eight hung handlers hold every slot; the limit frees them and the echo is answered.
    let run = start();
    await run.stdout.waitFor(/"msg":"ready"/, 30_000);
    await hangs();
    const echo = await sendSurely(user!, "other", "!echo");
    await waitUntil(
      () => answers(new RegExp(`^echo ${echo}$`)).length === 1,
      30_000,
      () => `the echo was not answered:\n${run.stdout.text.slice(-3000)}`,
    );
    await waitUntil(
      () => answers(/^Sorry, `hang` took longer than its time limit \(4 s\)/).length === 8,
      30_000,
      () => run.stdout.text.slice(-3000),
    );
    expect(count(run.stdout.text, /ran past its time limit of 4 s/g)).toBe(8);
    // Their messages are finished: once the journal's watermark passes them, a kill repeats none.
    await waitUntil(
      () => watermark() >= echo,
      10_000,
      () => `watermark ${watermark()} below ${echo}`,
    );
    await killIfRunning(child);

    // 2. Eight more that a kill ends each time before their limit: counted at half time, thrice.
    const poison = await hangs();
    for (let attempt = 1; attempt <= 3; attempt++) {
      run = start();
      await run.stdout.waitFor(/"msg":"ready"/, 30_000);
      await waitUntil(
        () => count(run.stdout.text, /has run for half its time limit/g) === 8,
        30_000,
        () => `attempt ${attempt}:\n${run.stdout.text.slice(-3000)}`,
      );
      if (attempt === 3)
        await waitUntil(
          () => count(run.stdout.text, /quarantined after 3 failures/g) === 8,
          10_000,
          () =>
            run.stdout.text
              .split("\n")
              .filter((l) => /half its|quarantined/.test(l))
              .join("\n"),
        );
      await killIfRunning(child);
    }

    // 3. The restart skips the eight (quarantined: none runs, none holds a slot) and answers a
    // fresh command, in a topic where a poison message would otherwise hold it up.
    run = start();
    await run.stdout.waitFor(/"msg":"ready"/, 30_000);
    const fresh = await sendSurely(user!, "stuck 0", "!echo");
    await waitUntil(
      () => answers(new RegExp(`^echo ${fresh}$`)).length === 1,
      30_000,
      () => `the fresh command was not answered:\n${run.stdout.text.slice(-3000)}`,
    );
    expect(count(run.stdout.text, /has run for half its time limit/g)).toBe(0);
    expect(count(run.stdout.text, /is quarantined \(its handler failed too often\)/g)).toBe(8);
    child!.kill("SIGTERM");
    await waitUntil(
      () => child!.exitCode !== null,
      20_000,
      () => run.stderr.text,
    );

    // `bot check` lists them.
    const checked = await runBot(["check", "--config", "bot.config.yaml"], { cwd: dir });
    for (const id of poison)
      expect(checked.stdout).toContain(`message ${id}: plugin hang, command hang, failed 3 times`);
    await user!.close();
  }, 180_000);
});
