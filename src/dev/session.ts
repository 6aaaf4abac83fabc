// A `bot dev` session: a world (sandbox or server), the bot (reloaded when plugin files change), the terminal chat.
import { basename, dirname, join, relative } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { loadConfigFile } from "../config/load.js";
import type { BotConfig } from "../config/schema.js";
import { configSecrets } from "../config/secrets.js";
import { createLogger, serverSecrets } from "../log/logger.js";
import { createBot, type Bot } from "../bot/bot.js";
import { createMemoryStore } from "../state/key-value/store.js";
import { Attribution } from "./attribution.js";
import { DevClock } from "./dev-clock.js";
import { describeReloadError } from "./web/reload-error.js";
import { startWebConsole, type WebConsole } from "./web/server.js";
import { openWorld } from "./open-world.js";
import { loadPluginsFresh, type LoadedPlugin } from "./plugins.js";
import { watchFolder, type FolderWatch } from "./watch.js";
import {
  chatLine,
  describePlace,
  helpText,
  parseInput,
  printable,
  reactionText,
  rowsOf,
  type Input,
  type Place,
} from "./terminal.js";
import type { DevWorld } from "./world.js";

export interface DevOptions {
  /** Path of bot.config.yaml. */
  config: string;
  input: Readable;
  output: Writable;
  /** Who the developer speaks as at first in the sandbox. Default `mia`. */
  as?: string;
  /** The developer's own zuliprc, to chat on the configured server as themself. Default: `TOPICBOT_DEV_ZULIPRC`. */
  me?: string;
  /** Use the embedded sandbox even when a server is configured. */
  sandbox?: boolean;
  /** Environment for the config's `${VAR}`s and `TOPICBOT_DEV_ZULIPRC`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Reload plugins when their files change. Default true. */
  watch?: boolean;
  /** Milliseconds to wait after a change before reloading (editors write in bursts). Default 100. */
  debounceMs?: number;
  /** `--web`: also serve the dev console page on loopback (this port; 0 picks a free one). */
  web?: { port: number };
}

/**
 * Runs `bot dev` until the input ends or the developer types `/quit`; resolves with the exit code.
 * With a server configured it chats there as the account of `me` (else it throws a ConfigError
 * saying to pass `--me` or `--sandbox` before starting anything); otherwise in the embedded sandbox.
 *
 * @example
 * await runDevSession({ config: "bot.config.yaml", input: process.stdin, output: process.stdout });
 */
export async function runDevSession(options: DevOptions): Promise<number> {
  const env = options.env ?? process.env;
  const config: BotConfig = await loadConfigFile(options.config, env);
  // The console's clock moves ahead on demand ("+1 h"); the terminal alone runs on real time.
  const clock = options.web ? new DevClock() : undefined;
  const world = await openWorld(config, {
    clock,
    configFile: options.config,
    sandbox: options.sandbox,
    me: options.me,
    as: options.as,
    env,
  });
  try {
    return await chat(options, config, world, world.sandbox ? clock : undefined);
  } finally {
    clock?.close();
    await world.close();
  }
}

/** The session proper, in a world that is open (and closed by the caller). */
async function chat(
  options: DevOptions,
  config: BotConfig,
  world: DevWorld,
  clock: DevClock | undefined,
): Promise<number> {
  const { output } = options;
  const write = (text: string): void => void output.write(`${text}\n`);
  let place: Place = { type: "channel", channel: "general", topic: "dev" };
  const storage = createMemoryStore();
  let web: WebConsole | undefined;
  const attribution = new Attribution((handled) => web?.handled(handled));
  const logger = createLogger({
    level: "warn",
    format: "pretty",
    destination: output,
    secrets: [...configSecrets(config), ...serverSecrets(world.server), ...world.secrets],
  });
  // Set once the banner is printed; lines shown before it are plain.
  let rl: Interface | undefined = undefined;
  /** The message whose chat line was printed last, and the rows it took: its edits rewrite it. */
  let lastLine: { messageId: number; rows: number } | undefined;
  const columns = (): number => (output as { columns?: number }).columns ?? 80;
  const show = (text: string, messageId?: number): void => {
    if (rl && interactiveOutput(output)) {
      output.write("\r\x1b[K");
      write(text);
      rl.prompt(true);
    } else write(text);
    lastLine = messageId === undefined ? undefined : { messageId, rows: rowsOf(text, columns()) };
  };
  /**
   * A message's new text (a streamed answer growing): on a terminal, its line is rewritten in
   * place while it is the last one printed; otherwise (or piped) the new text is a new line.
   */
  const showEdit = (text: string, messageId: number): void => {
    if (rl && interactiveOutput(output) && lastLine?.messageId === messageId) {
      // Up from the prompt over the old text, then clear everything below.
      output.write(`\r\x1b[K\x1b[${lastLine.rows}A\r\x1b[J`);
      write(text);
      rl.prompt(true);
      lastLine = { messageId, rows: rowsOf(text, columns()) };
    } else show(text, messageId);
  };

  // What happens in the world, as it happens; the developer's own lines are not echoed.
  let bot: Bot | undefined;
  const botId = (): number | undefined => bot?.me.userId;
  const typed: { senderId: number; content: string }[] = [];
  await world.observe(
    {
      message: (m) => {
        const via = m.senderId === botId() ? attribution.ofMessage(m) : undefined;
        web?.message(m, via);
        const echo = typed.findIndex(
          (t) => t.senderId === m.senderId && t.content.trim() === m.content.trim(),
        );
        if (echo >= 0) {
          typed.splice(echo, 1);
          return;
        }
        show(chatLine(m.where, m.senderName, m.content, via), m.id);
      },
      edit: (m) => {
        const via = m.senderId === botId() ? attribution.ofMessage(m) : undefined;
        showEdit(
          chatLine(m.where, m.senderName, m.content, via ? `${via}, edited` : "edited"),
          m.id,
        );
      },
      reaction: (r) => {
        const via = r.userId === botId() ? attribution.ofReaction(r.message.id) : undefined;
        web?.reaction(r, via);
        show(
          chatLine(
            r.message.where,
            r.userName,
            reactionText(r.op, r.emoji, r.message.content),
            via,
          ),
        );
      },
      upload: (u) => {
        const via = u.ownerId === botId() ? attribution.latest() : undefined;
        web?.upload(u, via);
        show(
          printable(
            `${u.ownerName}${via ? ` (${via})` : ""} uploaded ${u.filename} (${u.bytes} bytes): ${u.url}`,
          ),
        );
      },
    },
    logger,
  );

  // The bot, (re)started on the same server and storage.
  let version = 0;
  let loaded: LoadedPlugin[] = [];
  const startBot = async (): Promise<void> => {
    const plugins = await loadPluginsFresh(config, options.config, ++version);
    await bot?.stop();
    const next = createBot({
      server: world.server,
      plugins,
      prefix: config.prefix,
      respondTo: config.respondTo,
      errorReply: config.errorReply,
      handlers: config.handlers,
      storage,
      logger,
      handleSignals: false,
      rateLimit: false,
      now: clock ? () => clock.now() : undefined,
      schedulerClock: clock,
      observer: web?.observer,
    });
    next.use(attribution.middleware);
    await next.start();
    bot = next;
    loaded = plugins;
  };

  // Reloading when a plugin's files change.
  let watchers: FolderWatch[] = [];
  let timer: NodeJS.Timeout | undefined;
  let reloading = Promise.resolve();
  const reload = (changed: string): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      reloading = reloading.then(async () => {
        try {
          await startBot();
          web?.reloaded({ ok: true, changed, plugins: loaded.map((p) => p.plugin.name) });
          show(`↻ reloaded ${loaded.map((p) => p.plugin.name).join(", ")} (${changed} changed)`);
        } catch (error) {
          web?.reloaded({ ok: false, changed, ...describeReloadError(error) });
          show(`✗ reload failed, the previous version keeps running: ${(error as Error).message}`);
        }
      });
    }, options.debounceMs ?? 100);
  };

  // The conversation: what the developer types.
  const userIdOf = async (name: string): Promise<number> =>
    name === "bot" && bot ? bot.me.userId : (await world.person(name)).userId;
  const say = async (text: string): Promise<void> => {
    const to = place.type === "direct" ? await userIdOf(place.to) : undefined;
    const line = { senderId: world.speaker().userId, content: text };
    typed.push(line);
    try {
      await world.send(place, to, text);
    } catch (error) {
      typed.splice(typed.indexOf(line), 1);
      throw error;
    }
  };
  const act = async (input: Input): Promise<void> => {
    switch (input.kind) {
      case "say":
        return say(input.text);
      case "switch":
        if (input.place.type === "direct") await userIdOf(input.place.to);
        place = input.place;
        return;
      case "as":
        return world.speakAs(input.handle);
      case "help":
        return write(helpText(world.remote));
      case "error":
        return write(input.message);
      case "quit":
      case "nothing":
        return;
    }
  };

  try {
    if (options.web)
      web = await startWebConsole({
        world,
        storage,
        clock,
        prefix: config.prefix,
        port: options.web.port,
        bot: () => bot,
        plugins: () => loaded,
        logger,
        watching: options.watch ?? true,
        project: { configFile: options.config, config },
      });
    await startBot();
    if (options.watch ?? true) watchers = watchPluginFiles(loaded, reload);
    const names = loaded.map((p) => p.plugin.name).join(", ") || "no plugins";
    write(
      [
        `topicbot dev: ${world.description}; the bot runs ${names}.`,
        options.sandbox && config.server
          ? `(--sandbox: the configured server ${config.server.site} is left alone.)`
          : "",
        `You are ${world.speaker().fullName} in ${describePlace(place)}. ${config.prefix}help lists the bot's commands; /help lists yours.`,
        web ? `The dev console is at ${web.url} (loopback only; the token in it is the key).` : "",
      ]
        .filter(Boolean)
        .join("\n"),
    );
    const terminal = createInterface({
      input: options.input,
      output,
      terminal: interactiveOutput(output),
    });
    rl = terminal;
    const prompt = (): void => {
      if (!interactiveOutput(output)) return;
      terminal.setPrompt(`${describePlace(place)} ${world.speaker().handle}> `);
      terminal.prompt();
    };
    prompt();
    let queue = Promise.resolve();
    terminal.on("line", (line) => {
      queue = queue.then(async () => {
        const input = parseInput(line, place);
        if (input.kind === "quit") return terminal.close();
        try {
          await act(input);
        } catch (error) {
          write(`✗ ${(error as Error).message}`);
        }
        prompt();
      });
    });
    terminal.on("SIGINT", () => terminal.close());
    await new Promise<void>((resolve) => terminal.once("close", resolve));
    await queue;
  } finally {
    clearTimeout(timer);
    for (const w of watchers) w.close();
    await reloading;
    await bot?.stop();
    await web?.close();
  }
  write("bye");
  return 0;
}

/**
 * Watches the files of path and built-in plugins: a plugin folder (index.ts) whole, a single-file
 * plugin through its folder by name, since editors often replace a file rather than write to it.
 */
function watchPluginFiles(
  loaded: readonly LoadedPlugin[],
  onChange: (changed: string) => void,
): FolderWatch[] {
  const targets = new Map<string, string | undefined>();
  for (const file of loaded.map((p) => p.file).filter((f): f is string => f !== undefined)) {
    if (/^index\.[mc]?[jt]s$/.test(basename(file))) targets.set(dirname(file), undefined);
    else if (!targets.has(dirname(file)) || targets.get(dirname(file)) !== undefined)
      targets.set(dirname(file), basename(file));
  }
  return [...targets].map(([dir, only]) => {
    const changedFile = (changed: string): void => {
      if (/\.test\.|~$|\.tmp$|(^|[\\/])\./.test(changed)) return;
      onChange(relative(process.cwd(), join(dir, changed)) || dir);
    };
    if (only !== undefined)
      return watchFolder(dir, (changed) => changed === only && changedFile(changed), {
        recursive: false,
      });
    return watchFolder(dir, changedFile);
  });
}

/** A terminal gets prompts and redrawn lines; a pipe gets plain lines. */
const interactiveOutput = (output: Writable): boolean =>
  (output as { isTTY?: boolean }).isTTY === true;
