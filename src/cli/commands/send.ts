// `bot send`: post one message from a script or CI job, to a channel and topic or to users; exit 0 or the reason.
import { access, stat } from "node:fs/promises";
import { basename } from "node:path";
import type { Command } from "commander";
import { createClient, type ApiClient, type ClientOptions } from "../../client/client.js";
import {
  ApiError,
  CertificateError,
  InvalidArgumentError,
  NetworkError,
} from "../../client/errors.js";
import { ConfigError } from "../../config/errors.js";
import { loadConfigFile } from "../../config/load.js";
import { redactSecrets } from "../../log/logger.js";
import type { Output } from "../output.js";

export interface SendOptions {
  /** A channel name or ID (with `topic`), or comma-separated user emails or IDs (without). */
  to: string;
  topic?: string;
  /** A file to upload; its link is appended to the message. */
  file?: string;
  /** Configuration file with a `server:` section. */
  config?: string;
  /** The message; read from standard input when absent or `-`. */
  message?: string;
}

/** Uploads a file and returns where it is (default: the server's `POST /user_uploads`). */
export type UploadFn = (client: ApiClient, path: string) => Promise<{ url: string; name?: string }>;

export interface SendIO {
  out: Output;
  /** Where a message without an argument comes from. Default: the process's standard input. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Environment for `ZULIP_*` and `${VAR}` in the config. Default `process.env`. */
  env?: Record<string, string | undefined>;
  upload?: UploadFn;
  /** Extra client settings (tests turn retries off). */
  client?: Partial<ClientOptions>;
  /** The config file tried when neither `--config` nor the environment gives a server. */
  defaultConfig?: string;
}

/** Exit codes: 0 sent; 1 the server refused (its code is printed); 2 bad usage or config; 3 unreachable. */
export const SEND_EXIT = { ok: 0, refused: 1, usage: 2, network: 3 } as const;

class UsageError extends Error {}

/** Standard input holds at most this much (the server's own limit is far lower). */
const MAX_STDIN_BYTES = 1024 * 1024;

/** Uploads through the client; the link is the server's (often relative, `/user_uploads/...`). */
const uploadFile: UploadFn = async (client, path) => {
  const uploaded = await client.uploads.upload({ file: path });
  return { url: uploaded.url, name: uploaded.filename };
};

async function readStdin(stdin: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string> {
  if (stdin.isTTY)
    throw new UsageError("no message: give it as an argument or pipe it on standard input");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_STDIN_BYTES)
      throw new UsageError(`standard input is larger than ${MAX_STDIN_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

interface Server {
  site: string;
  email: string;
  apiKey: string;
}

/** Credentials: `--config` first, then `ZULIP_SITE`/`ZULIP_EMAIL`/`ZULIP_API_KEY`, then the default file. */
async function resolveServer(options: SendOptions, io: SendIO): Promise<Server> {
  const env = io.env ?? process.env;
  const fromFile = async (file: string): Promise<Server> => {
    const config = await loadConfigFile(file, env);
    if (!config.server)
      throw new ConfigError(
        file,
        "server",
        "bot send needs a server section (site, email, apiKey)",
      );
    return config.server;
  };
  if (options.config) return fromFile(options.config);
  const names = ["ZULIP_SITE", "ZULIP_EMAIL", "ZULIP_API_KEY"] as const;
  const set = names.filter((n) => env[n]);
  if (set.length === names.length)
    return { site: env.ZULIP_SITE!, email: env.ZULIP_EMAIL!, apiKey: env.ZULIP_API_KEY! };
  if (set.length > 0)
    throw new UsageError(
      `incomplete credentials in the environment: ${names.filter((n) => !env[n]).join(", ")} not set`,
    );
  const fallback = io.defaultConfig ?? "bot.config.yaml";
  const exists = await access(fallback).then(
    () => true,
    () => false,
  );
  if (exists) return fromFile(fallback);
  throw new UsageError(
    "no server credentials: set ZULIP_SITE, ZULIP_EMAIL and ZULIP_API_KEY, or pass --config <file> with a server section",
  );
}

type Recipient =
  | { type: "channel"; to: string | number; topic: string }
  | { type: "direct"; to: string[] | number[] };

/** A channel with `--topic`; users (emails or IDs) without. */
export function parseRecipient(to: string, topic: string | undefined): Recipient {
  const target = to.trim();
  if (!target) throw new UsageError("--to is empty");
  if (topic !== undefined) {
    if (topic.trim() === "") throw new UsageError("--topic is empty");
    if (target.includes("@"))
      throw new UsageError(
        `--to "${target}" names users: a direct message takes no --topic; a channel message goes to one channel`,
      );
    return { type: "channel", to: /^\d+$/.test(target) ? Number(target) : target, topic };
  }
  const users = target.split(",").map((u) => u.trim());
  for (const user of users) {
    if (!user) throw new UsageError(`--to "${target}" has an empty entry`);
    if (!/^\d+$/.test(user) && !user.includes("@"))
      throw new UsageError(
        `--to "${user}" is neither an email nor a user ID; for a channel message, give --topic too`,
      );
  }
  const ids = users.filter((u) => /^\d+$/.test(u));
  if (ids.length === users.length) return { type: "direct", to: ids.map(Number) };
  if (ids.length > 0)
    throw new UsageError(`--to "${target}" mixes emails and user IDs: use one kind`);
  return { type: "direct", to: users };
}

/**
 * Sends one message; resolves with the exit code. On success prints the new message's ID.
 *
 * @example
 * const code = await runSend({ to: "ci", topic: "builds", message: "Build passed" }, { out: processOutput });
 */
export async function runSend(options: SendOptions, io: SendIO): Promise<number> {
  let secrets: string[] = [];
  let client: ApiClient | undefined;
  try {
    const recipient = parseRecipient(options.to, options.topic);
    let content =
      options.message !== undefined && options.message !== "-"
        ? options.message
        : await readStdin(io.stdin ?? process.stdin);
    content = content.trimEnd();
    if (options.file) {
      const info = await stat(options.file).catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read --file ${options.file}: ${error.code ?? error.message}`);
      });
      if (!info.isFile()) throw new UsageError(`--file ${options.file} is not a file`);
    }
    if (!content && !options.file)
      throw new UsageError("the message is empty (nothing in the argument or on standard input)");

    const server = await resolveServer(options, io);
    secrets = [server.apiKey];
    client = createClient({ ...server, userAgent: "topicbot-send", ...io.client });
    if (options.file) {
      const uploaded = await (io.upload ?? uploadFile)(client, options.file);
      const name = (uploaded.name ?? basename(options.file)).replace(/[[\]]/g, "");
      content = `${content ? `${content}\n` : ""}[${name}](${uploaded.url})`;
    }
    const sent =
      recipient.type === "channel"
        ? await client.messages.send({
            type: "channel",
            to: recipient.to,
            topic: recipient.topic,
            content,
          })
        : await client.messages.send({ type: "direct", to: recipient.to, content });
    io.out.stdout(String(sent.id));
    return SEND_EXIT.ok;
  } catch (error) {
    const say = (text: string) => io.out.stderr(`error: ${redactSecrets(text, secrets)}`);
    if (error instanceof ApiError) {
      say(`${error.code}: ${error.msg || error.message}`);
      return SEND_EXIT.refused;
    }
    if (error instanceof CertificateError) {
      // A setting to change (server.tls), not an outage to wait out: the config exit code.
      say(`cannot connect to the server: ${error.message}`);
      return SEND_EXIT.usage;
    }
    if (error instanceof NetworkError) {
      say(`cannot reach the server: ${error.message}`);
      return SEND_EXIT.network;
    }
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof InvalidArgumentError
    ) {
      say(error.message);
      return SEND_EXIT.usage;
    }
    throw error;
  } finally {
    await client?.close();
  }
}

/**
 * Adds `bot send` to a commander program; `setExitCode` receives the outcome.
 *
 * @example
 * registerSend(program, { out }, (code) => (exitCode = code));
 */
export function registerSend(
  program: Command,
  io: SendIO,
  setExitCode: (code: number) => void,
): Command {
  return program
    .command("send")
    .description("send one message (for scripts and CI): to a channel and topic, or to users")
    .option(
      "--to <recipient>",
      "channel name or ID (with --topic), or comma-separated user emails or IDs for a direct message",
    )
    .option("--topic <topic>", "topic of a channel message")
    .option("--file <path>", "upload a file and append its link to the message")
    .option(
      "-c, --config <file>",
      "config file with a server section (default: ZULIP_SITE/ZULIP_EMAIL/ZULIP_API_KEY, then bot.config.yaml)",
    )
    .argument("[message...]", "the message; read from standard input when absent or -")
    .action(async (words: string[], opts: Omit<SendOptions, "message">) => {
      if (!opts.to) {
        io.out.stderr(
          "error: bot send needs --to <recipient>: a channel name or ID (with --topic), or user emails or IDs",
        );
        return setExitCode(SEND_EXIT.usage);
      }
      const message = words.length > 0 ? words.join(" ") : undefined;
      setExitCode(await runSend({ ...opts, message }, io));
    });
}
