// Which world `bot dev` chats in: the configured server as the developer (`--me`), or the embedded sandbox.
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { ConfigError } from "../config/errors.js";
import type { Clock } from "../sandbox/clock.js";
import type { BotConfig, ServerConfig } from "../config/schema.js";
import { parseZuliprc, type ZuliprcCredentials } from "../config/zuliprc.js";
import { startSandboxWorld } from "./sandbox-world.js";
import { connectServerWorld } from "./server-world.js";
import type { DevWorld } from "./world.js";

/** The environment variable that names the developer's zuliprc when `--me` is not given. */
export const DEV_ZULIPRC_ENV = "TOPICBOT_DEV_ZULIPRC";

export interface WorldChoice {
  /** Path of bot.config.yaml (for error messages). */
  configFile: string;
  /** `--sandbox`: the embedded sandbox even when a server is configured. */
  sandbox?: boolean;
  /** `--me <zuliprc>`: the developer's own account on the configured server. */
  me?: string;
  /** `--as <handle>`: who the developer is in the sandbox. */
  as?: string;
  /** The sandbox's clock (`--web` moves it ahead); real time when absent. */
  clock?: Clock;
  env: Record<string, string | undefined>;
}

/** Where the developer's zuliprc comes from, if anywhere: `--me`, else the environment. */
function zuliprcPath(choice: WorldChoice): { path: string; from: string } | undefined {
  const given = choice.me ?? choice.env[DEV_ZULIPRC_ENV];
  if (!given) return undefined;
  const path = resolve(given.replace(/^~(?=$|\/)/, homedir()));
  return { path, from: choice.me ? "--me" : DEV_ZULIPRC_ENV };
}

/** The developer's credentials from their zuliprc; a missing or broken file is a ConfigError naming it. */
async function readMe(path: string, from: string): Promise<ZuliprcCredentials> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      path,
      "",
      code === "ENOENT" ? `zuliprc file not found (${from})` : `cannot read (${from}): ${code}`,
    );
  }
  return parseZuliprc(text, path);
}

/** `https://Chat.example.com/` and `https://chat.example.com` are one site. */
const sameSite = (a: string, b: string): boolean => {
  const norm = (s: string): string => {
    try {
      const url = new URL(s);
      return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
    } catch {
      return s.replace(/\/+$/, "").toLowerCase();
    }
  };
  return norm(a) === norm(b);
};

/**
 * Picks and starts the world, checking the options before anything starts: a configured server
 * needs the developer's zuliprc (`--me` or `TOPICBOT_DEV_ZULIPRC`) for the same site, or `--sandbox`.
 * Mistakes are ConfigErrors naming the option; they never show a key.
 *
 * @example
 * const world = await openWorld(config, { configFile: "bot.config.yaml", me: "~/.zuliprc", env: process.env });
 */
export async function openWorld(config: BotConfig, choice: WorldChoice): Promise<DevWorld> {
  const server: ServerConfig | undefined = choice.sandbox ? undefined : config.server;
  if (choice.sandbox && choice.me !== undefined)
    throw new ConfigError(
      choice.configFile,
      "",
      "--me and --sandbox exclude each other: --me chats on the configured server, --sandbox on the embedded one",
    );
  if (!server) {
    if (choice.me !== undefined)
      throw new ConfigError(
        choice.configFile,
        "server",
        "--me needs a configured server (a server section, or ZULIP_SITE, ZULIP_EMAIL and ZULIP_API_KEY); without one bot dev runs the embedded sandbox",
      );
    return startSandboxWorld({ port: config.sandbox.port, as: choice.as, clock: choice.clock });
  }
  const source =
    config.serverSource && config.serverSource !== choice.configFile
      ? ` (from ${config.serverSource})`
      : "";
  const rc = zuliprcPath(choice);
  if (!rc)
    throw new ConfigError(
      choice.configFile,
      "server",
      `bot dev would chat on ${server.site}${source} as you: pass --me <zuliprc> (your own account's zuliprc, or set ${DEV_ZULIPRC_ENV}), or --sandbox to use the embedded sandbox`,
    );
  if (choice.as !== undefined)
    throw new ConfigError(
      choice.configFile,
      "",
      `--as ${choice.as} plays a sandbox user; on ${server.site} you speak as the account of your zuliprc (or add --sandbox)`,
    );
  const me = await readMe(rc.path, rc.from);
  if (!sameSite(me.site, server.site))
    throw new ConfigError(
      rc.path,
      "api.site",
      `is ${me.site}, but the bot's server${source} is ${server.site}; bot dev needs both on one server`,
    );
  if (me.email.toLowerCase() === server.email.toLowerCase())
    throw new ConfigError(
      rc.path,
      "api.email",
      `is the bot's own account (${server.email}); bot dev needs your human account's zuliprc`,
    );
  return connectServerWorld({ server, me });
}
