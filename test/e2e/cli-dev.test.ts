import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

const bin = fileURLToPath(new URL("../../bin/bot.js", import.meta.url));

/** A plugin in plain TypeScript (no imports, so it loads from any folder). */
const plugin = (
  greeting: string,
): string => `// greet: the plugin this test edits while bot dev runs.
const greeting: string = ${JSON.stringify(greeting)};
export default {
  name: "greet",
  description: "Greets, counts the topic's messages, and likes things.",
  setup(bot: any) {
    bot.command("greet", { description: "Greet" }, (ctx: any) => ctx.reply(\`\${greeting}, \${ctx.sender.fullName}\`));
    bot.command("like", { description: "React" }, (ctx: any) => ctx.react("thumbs_up"));
    bot.command("count", { description: "Count" }, async (ctx: any) => {
      const { messages } = await ctx.api.messages.list({
        anchor: "newest", num_before: 100, num_after: 0,
        narrow: [{ operator: "channel", operand: ctx.conversation.channel }, { operator: "topic", operand: ctx.conversation.topic }],
      });
      await ctx.reply(\`\${messages.length} messages here\`);
    });
  },
};
`;

/** The child's exit code, or a clear failure when it has not exited within `timeoutMs`. */
async function exitCode(child: ChildProcess, output: () => string, timeoutMs = 20_000) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`bot dev did not exit within ${timeoutMs} ms; it printed:\n${output()}`)),
      timeoutMs,
    );
  });
  try {
    const [code] = (await Promise.race([once(child, "exit"), timeout])) as [number | null];
    return code;
  } finally {
    clearTimeout(timer);
  }
}

/** The spawned `bot dev`: type lines, wait for output. */
function devProcess(child: ChildProcess) {
  let output = "";
  let seen = 0;
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return {
    type(line: string) {
      child.stdin!.write(`${line}\n`);
    },
    /** Waits (bounded) for `pattern` in what was printed since the last match. */
    async expect(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const rest = output.slice(seen);
        const match = pattern.exec(rest);
        if (match) {
          seen += match.index + match[0].length;
          return match[0];
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(
        `bot dev did not print ${pattern} within ${timeoutMs} ms; it printed:\n${output}`,
      );
    },
    output: () => output,
  };
}

describe("bot dev", () => {
  let dir: string | undefined;
  let child: ChildProcess | undefined;
  let server: Sandbox | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    await server?.close();
    server = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("chats in the terminal, shows who answered, and reloads a changed plugin keeping the messages", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-dev-"));
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
    await writeFile(join(dir, "bot.config.yaml"), "plugins:\n  - ping\n  - ./greet.ts\n");
    await writeFile(join(dir, "greet.ts"), plugin("Hello"));
    child = spawn(process.execPath, [bin, "dev"], {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: "", FORCE_COLOR: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const dev = devProcess(child);
    await dev.expect(/the bot runs ping, greet\.\nYou are Mia Member in #general > dev\./, 20_000);

    dev.type("!ping");
    await dev.expect(/\[#general > dev\] Topic Bot \(ping › command ping\): pong/);
    dev.type("!greet");
    await dev.expect(/Topic Bot \(greet › command greet\): Hello, Mia Member/);
    dev.type("!like");
    await dev.expect(
      /\[#general > dev\] Topic Bot \(greet › command like\): reacted :thumbs_up: on "!like"/,
    );

    dev.type("#ops > deploys");
    dev.type("/as adam");
    dev.type("!greet");
    await dev.expect(/\[#ops > deploys\] Topic Bot \(greet › command greet\): Hello, Adam Admin/);
    dev.type("@bot");
    dev.type("ping");
    await dev.expect(/\[DM Adam Admin, Topic Bot\] Topic Bot \(ping › command ping\): pong/);

    // Edit the plugin: the bot reloads it; the sandbox and its messages stay.
    await writeFile(join(dir, "greet.ts"), plugin("Bonjour"));
    await dev.expect(/↻ reloaded ping, greet \(greet\.ts changed\)/);
    dev.type("#general > dev");
    dev.type("!greet");
    await dev.expect(/Topic Bot \(greet › command greet\): Bonjour, Adam Admin/);
    dev.type("!count");
    // !ping, pong, !greet, Hello, !like, !greet, Bonjour, and !count itself.
    await dev.expect(/Topic Bot \(greet › command count\): 8 messages here/);

    dev.type("/quit");
    expect(await exitCode(child, dev.output)).toBe(0);
    expect(dev.output()).toMatch(/bye\n$/);
  }, 60_000);

  it("chats on a configured server with --me, and without it says what to pass", async () => {
    server = await startSandbox();
    dir = await mkdtemp(join(tmpdir(), "topicbot-dev-"));
    const { bot } = server;
    const mia = server.user("mia");
    await writeFile(
      join(dir, "bot.config.yaml"),
      `server:\n  site: ${server.url}\n  email: ${bot.email}\n  apiKey: ${bot.apiKey}\nplugins:\n  - ping\n`,
    );
    await writeFile(
      join(dir, "mia.zuliprc"),
      `[api]\nemail=${mia.email}\nkey=${mia.apiKey}\nsite=${server.url}\n`,
    );
    const env = { ...process.env, NODE_OPTIONS: "", FORCE_COLOR: "0", TOPICBOT_DEV_ZULIPRC: "" };

    child = spawn(process.execPath, [bin, "dev"], {
      cwd: dir,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const refused = devProcess(child);
    expect(await exitCode(child, refused.output)).toBe(2);
    const message = refused.output().trim();
    expect(message).toMatch(
      /^error: bot\.config\.yaml: server: bot dev would chat on http:\/\/127\.0\.0\.1:\d+ as you: pass --me <zuliprc>/,
    );
    expect(message).toContain("or --sandbox");
    expect(message.split("\n")).toHaveLength(1);
    expect(message).not.toContain(bot.apiKey);

    child = spawn(process.execPath, [bin, "dev", "--me", "mia.zuliprc", "--no-watch"], {
      cwd: dir,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const dev = devProcess(child);
    await dev.expect(
      /chatting on the server http:\/\/127\.0\.0\.1:\d+; the bot runs ping\.\nYou are Mia Member/,
      20_000,
    );
    dev.type("!ping");
    await dev.expect(/\[#general > dev\] Topic Bot \(ping › command ping\): pong/);
    dev.type("/quit");
    expect(await exitCode(child, dev.output)).toBe(0);
    expect(server.realm.messages.map((m) => m.content)).toEqual(["!ping", "pong"]);
  }, 60_000);

  it("shows a streamed answer's edits, labelled with the handler that streams", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-dev-"));
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
    await writeFile(join(dir, "bot.config.yaml"), "plugins:\n  - ping\n  - ./tell.ts\n");
    await writeFile(
      join(dir, "tell.ts"),
      `// tell: streams its answer in three chunks.
async function* chunks() {
  for (const word of ["once", " upon", " a time"]) {
    yield word;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}
export default {
  name: "tell",
  setup(bot: any) {
    bot.command("tell", { description: "Tell a story" }, (ctx: any) => ctx.stream(chunks(), { minEditIntervalMs: 50 }));
  },
};
`,
    );
    child = spawn(process.execPath, [bin, "dev", "--no-watch"], {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: "", FORCE_COLOR: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const dev = devProcess(child);
    await dev.expect(/the bot runs ping, tell\./, 20_000);
    dev.type("!ping");
    await dev.expect(/Topic Bot \(ping › command ping\): pong/);
    dev.type("!tell");
    // The first chunk is posted by the streaming handler, not the one that answered before it.
    await dev.expect(/\[#general > dev\] Topic Bot \(tell › command tell\): once\n/);
    await dev.expect(/Topic Bot \(tell › command tell, edited\): once upon a time\n/);
    dev.type("/quit");
    expect(await exitCode(child, dev.output)).toBe(0);
  }, 60_000);

  it("reloads after each atomic save (a temp file renamed over the plugin), three times", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-dev-"));
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
    await writeFile(join(dir, "bot.config.yaml"), "plugins:\n  - ./greet\n");
    await mkdir(join(dir, "greet"));
    const file = join(dir, "greet", "index.ts");
    await writeFile(file, plugin("Hello"));
    child = spawn(process.execPath, [bin, "dev"], {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: "", FORCE_COLOR: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const dev = devProcess(child);
    await dev.expect(/the bot runs greet\./, 20_000);
    for (const greeting of ["Hi", "Hey", "Howdy"]) {
      // What JetBrains IDEs, Emacs and git checkout do: write a temp file, rename it over the old one.
      await writeFile(`${file}.tmp~`, plugin(greeting));
      await rename(`${file}.tmp~`, file);
      await dev.expect(/↻ reloaded greet \(greet\/index\.ts[^)]*changed\)/, 15_000);
      dev.type("!greet");
      await dev.expect(new RegExp(`\\(greet › command greet\\): ${greeting}, Mia Member`));
    }
    dev.type("/quit");
    expect(await exitCode(child, dev.output)).toBe(0);
  }, 90_000);
});
