// A `bot dev` session: the sandbox, the bot (reloaded when plugin files change), and the terminal chat.
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { ApiClient } from "../client/client.js";
import { loadConfigFile } from "../config/load.js";
import type { BotConfig } from "../config/schema.js";
import { createLogger } from "../log/logger.js";
import { createBot, type Bot } from "../runtime/bot.js";
import { startSandbox, type Sandbox } from "../sandbox/server.js";
import { createMemoryStore } from "../storage/store.js";
import { RealmObserver, placeOf, observeMessage } from "../testing/observe.js";
import { People } from "../testing/people.js";
import { Attribution } from "./attribution.js";
import { loadPluginsFresh, type LoadedPlugin } from "./plugins.js";
import { chatLine, describePlace, HELP, parseInput, type Place } from "./terminal.js";

export interface DevOptions {
  /** Path of bot.config.yaml. */
  config: string;
  input: Readable;
  output: Writable;
  /** Who the developer speaks as at first. Default `mia`. */
  as?: string;
  /** Reload plugins when their files change. Default true. */
  watch?: boolean;
  /** Milliseconds to wait after a change before reloading (editors write in bursts). Default 100. */
  debounceMs?: number;
}

/**
 * Runs `bot dev` until the input ends or the developer types `/quit`; resolves with the exit code.
 *
 * @example
 * await runDevSession({ config: "bot.config.yaml", input: process.stdin, output: process.stdout });
 */
export async function runDevSession(options: DevOptions): Promise<number> {
  const { output } = options;
  const config: BotConfig = await loadConfigFile(options.config);
  const sandbox: Sandbox = await startSandbox({ port: config.sandbox.port });
  const realm = sandbox.realm;
  const write = (text: string): void => void output.write(`${text}\n`);
  const people = new People(sandbox);
  const clientFor = (handle: string): ApiClient => people.client(handle);

  let speaker = options.as ?? "mia";
  people.account(speaker);
  let place: Place = { type: "channel", channel: "general", topic: "dev" };
  const storage = createMemoryStore();
  const attribution = new Attribution();
  const logger = createLogger({ level: "warn", format: "pretty", destination: output });
  // Set once the banner is printed; lines shown before it are plain.
  let rl: Interface | undefined = undefined;
  const show = (text: string): void => {
    if (rl && interactiveOutput(output)) {
      output.write("\r\x1b[K");
      write(text);
      rl.prompt(true);
    } else write(text);
  };

  // What happens in the realm, as it happens.
  const observer = new RealmObserver(realm);
  const typed: { senderId: number; content: string }[] = [];
  observer.on("message", (m) => {
    const echo = typed.findIndex((t) => t.senderId === m.senderId && t.content === m.content);
    if (echo >= 0) {
      typed.splice(echo, 1);
      return;
    }
    const stored = realm.message(m.id);
    const via =
      m.senderId === sandbox.bot.userId && stored ? attribution.ofMessage(stored) : undefined;
    show(chatLine(placeOf(realm, m), m.senderName, m.content, via));
  });
  observer.on("reaction", (r) => {
    const stored = realm.message(r.messageId);
    if (!stored) return;
    const m = observeMessage(realm, stored);
    const via = r.userId === sandbox.bot.userId ? attribution.ofReaction(r.messageId) : undefined;
    const verb = r.op === "add" ? "reacted" : "took back";
    const excerpt = m.content.length > 40 ? `${m.content.slice(0, 39)}…` : m.content;
    show(
      chatLine(
        placeOf(realm, m),
        r.userName,
        `${verb} :${r.emoji}: on ${JSON.stringify(excerpt)}`,
        via,
      ),
    );
  });
  observer.on("upload", (u) => {
    const who = realm.users.get(u.ownerId)?.fullName ?? `user ${u.ownerId}`;
    const via = u.ownerId === sandbox.bot.userId ? attribution.latest() : undefined;
    show(
      `${who}${via ? ` (${via})` : ""} uploaded ${u.filename} (${u.data.length} bytes): ${u.url}`,
    );
  });

  // The bot, (re)started on the same sandbox and storage.
  let version = 0;
  let bot: Bot | undefined;
  let loaded: LoadedPlugin[] = [];
  const startBot = async (): Promise<void> => {
    const plugins = await loadPluginsFresh(config, options.config, ++version);
    await bot?.stop();
    const next = createBot({
      server: { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey },
      plugins,
      prefix: config.prefix,
      respondTo: config.respondTo,
      errorReply: config.errorReply,
      storage,
      logger,
      handleSignals: false,
      rateLimit: false,
    });
    next.use(attribution.middleware);
    await next.start();
    bot = next;
    loaded = plugins;
  };
  await startBot();

  // Reloading when a plugin's files change.
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  let reloading = Promise.resolve();
  const reload = (changed: string): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      reloading = reloading.then(async () => {
        try {
          await startBot();
          show(`↻ reloaded ${loaded.map((p) => p.plugin.name).join(", ")} (${changed} changed)`);
        } catch (error) {
          show(`✗ reload failed, the previous version keeps running: ${(error as Error).message}`);
        }
      });
    }, options.debounceMs ?? 100);
  };
  if (options.watch ?? true) {
    // A plugin folder (index.ts) is watched whole; a single-file plugin through its folder, by
    // name, since editors often replace a file rather than write to it.
    const targets = new Map<string, string | undefined>();
    for (const file of loaded.map((p) => p.file).filter((f): f is string => f !== undefined)) {
      if (/^index\.[mc]?[jt]s$/.test(basename(file))) targets.set(dirname(file), undefined);
      else if (!targets.has(dirname(file)) || targets.get(dirname(file)) !== undefined)
        targets.set(dirname(file), basename(file));
    }
    for (const [dir, only] of targets) {
      const watcher = watch(dir, { recursive: only === undefined }, (_event, name) => {
        const changed = name === null ? "" : String(name);
        if (only !== undefined && changed !== only) return;
        if (/\.test\.|node_modules|(^|\/)\./.test(changed)) return;
        reload(relative(process.cwd(), join(dir, changed)) || dir);
      });
      watchers.push(watcher);
    }
  }

  write(
    [
      `topicbot dev: the embedded sandbox is at ${sandbox.url}; the bot runs ${loaded.map((p) => p.plugin.name).join(", ") || "no plugins"}.`,
      config.server
        ? "(bot dev always uses the embedded sandbox; the configured server is left alone.)"
        : "",
      `You are ${people.account(speaker).fullName} in ${describePlace(place)}. ${config.prefix}help lists the bot's commands; /help lists yours.`,
    ]
      .filter(Boolean)
      .join("\n"),
  );

  const say = async (text: string): Promise<void> => {
    const client = clientFor(speaker);
    const account = people.account(speaker);
    typed.push({ senderId: account.userId, content: text });
    if (place.type === "channel") {
      await people.channel(place.channel);
      await client.messages.send({
        type: "channel",
        to: place.channel,
        topic: place.topic,
        content: text,
      });
    } else {
      const to = resolveHandle(place.to);
      await client.messages.send({ type: "direct", to: [to], content: text });
    }
  };
  const resolveHandle = (name: string): number => {
    if (name === "bot") return sandbox.bot.userId;
    const wanted = name.toLowerCase();
    const match = people
      .all()
      .find((u) => u.handle === wanted || u.fullName.toLowerCase() === wanted);
    if (!match)
      throw new Error(
        `no user "${name}"; try ${people
          .all()
          .map((u) => u.handle)
          .join(", ")}`,
      );
    return match.userId;
  };

  rl = createInterface({
    input: options.input,
    output,
    terminal: (output as { isTTY?: boolean }).isTTY === true,
  });
  const interactive = interactiveOutput(output);
  const prompt = (): void => {
    if (!interactive) return;
    rl!.setPrompt(`${describePlace(place)} ${speaker}> `);
    rl!.prompt();
  };
  prompt();
  let queue = Promise.resolve();
  rl.on("line", (line) => {
    queue = queue.then(async () => {
      const input = parseInput(line, place);
      try {
        switch (input.kind) {
          case "say":
            await say(input.text);
            break;
          case "switch":
            if (input.place.type === "direct") resolveHandle(input.place.to);
            place = input.place;
            break;
          case "as":
            people.account(input.handle);
            speaker = input.handle;
            break;
          case "help":
            write(HELP);
            break;
          case "quit":
            rl!.close();
            return;
          case "error":
            write(input.message);
            break;
          case "nothing":
            break;
        }
      } catch (error) {
        write(`✗ ${(error as Error).message}`);
      }
      prompt();
    });
  });
  rl.on("SIGINT", () => rl!.close());
  await new Promise<void>((resolve) => rl!.once("close", resolve));
  await queue;
  clearTimeout(timer);
  for (const w of watchers) w.close();
  await reloading;
  await bot?.stop();
  observer.close();
  await people.close();
  await sandbox.close();
  write("bye");
  return 0;
}

/** A terminal gets prompts and redrawn lines; a pipe gets plain lines. */
const interactiveOutput = (output: Writable): boolean =>
  (output as { isTTY?: boolean }).isTTY === true;
