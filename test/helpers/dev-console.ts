// Test helper: `bot dev --web` run in-process on the embedded sandbox, with a plain test bot of widgets (zform card, poll, formatting, ask).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { runDevSession } from "../../src/dev/session.js";

/** The repository root: projects are made under it so their saved tests resolve vitest and topicbot. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/**
 * A plain-ESM plugin: `!card` posts a zform whose buttons reply `!picked <colour>`, `!picked`
 * answers, `!lunch` posts a poll, `!fmt` answers with Markdown, an emoji and a time, `!sure`
 * asks and reacts to the answer.
 */
export const widgetPlugin = `export default {
  name: "cards",
  description: "A plain test bot: a zform card, a poll, formatting, a question.",
  setup(bot) {
    const choice = (colour) => ({ type: "multiple_choice", short_name: colour[0].toUpperCase(), long_name: colour, reply: "!picked " + colour });
    bot.command("card", { description: "Post a card" }, async (ctx) => {
      await bot.api.messages.send({
        type: "channel",
        to: ctx.message.display_recipient,
        topic: ctx.message.subject,
        content: "Pick a colour: **blue** or **green** (say \`!picked blue\`)",
        widget_content: JSON.stringify({ widget_type: "zform", extra_data: { type: "choices", heading: "Pick a colour", choices: [choice("blue"), choice("green")] } }),
      });
    });
    bot.command("picked", { description: "Take a pick" }, (ctx) =>
      ctx.reply("you picked " + ctx.message.content.replace(/^!picked\\s*/, "")));
    bot.command("lunch", { description: "Poll" }, (ctx) => ctx.reply("/poll Lunch?\\nPizza\\nSoup"));
    bot.command("fmt", { description: "Formatting" }, (ctx) =>
      ctx.reply("**Shipped** :tada: at <time:2024-05-01T10:00:00Z>"));
    bot.command("sure", { description: "Ask" }, async (ctx) => {
      const answer = await ctx.ask("Sure?");
      if (answer) await answer.react("check");
    });
  },
};
`;

export interface DevConsole {
  /** The project folder (config, plugin; saved tests go to its test/). */
  dir: string;
  url: string;
  api<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: T }>;
  printed(): string;
  stop(): Promise<void>;
}

/** Starts the session (bounded wait for its console URL); `watch: false` is `--no-watch`. */
export async function startDevConsole(
  options: { watch?: boolean; timeoutMs?: number } = {},
): Promise<DevConsole> {
  const dir = await mkdtemp(join(repoRoot, "test", "tmp-console-"));
  await writeFile(join(dir, "cards.mjs"), widgetPlugin);
  await writeFile(join(dir, "bot.config.yaml"), "plugins:\n  - ping\n  - ./cards.mjs\n");
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  const done = runDevSession({
    config: join(dir, "bot.config.yaml"),
    input,
    output,
    env: {},
    watch: options.watch ?? true,
    web: { port: 0 },
  });
  const stop = async () => {
    input.end();
    await Promise.race([done.catch(() => 1), new Promise((r) => setTimeout(r, 15_000))]);
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let url: string | undefined;
  while (!(url = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(printed)?.[0])) {
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`bot dev printed no console URL in time; it printed:\n${printed}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const { origin, searchParams } = new URL(url);
  const token = searchParams.get("token")!;
  const api = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { "x-console-token": token, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, json: (await res.json()) as T };
  };
  return { dir, url, api, printed: () => printed, stop };
}

/** Polls `read` until `ok` holds of its value (bounded); throws with the last value. */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() > deadline)
      throw new Error(
        `condition not met in ${timeoutMs} ms; last: ${JSON.stringify(last).slice(0, 2000)}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}
