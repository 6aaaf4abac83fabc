// The `bot dev --web` console's HTTP side: the page, JSON actions and Server-Sent Events, on loopback behind a token.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Message } from "../../api/messages.js";
import type { Logger } from "../../log/logger.js";
import type { Bot } from "../../bot/bot.js";
import type { BotObserver } from "../../model/observer.js";
import type { KeyValueStore } from "../../state/key-value/store.js";
import type { HandledMessage } from "../attribution.js";
import type { DevClock } from "../dev-clock.js";
import type { LoadedPlugin } from "../plugins.js";
import type { Place } from "../terminal.js";
import type { DevWorld, ShownMessage, ShownReaction, ShownUpload } from "../world.js";
import { ownPath } from "../../own-files.js";
import { readInside } from "./inside.js";
import { ConsoleRecord } from "./record.js";
import { RequestError } from "./request-error.js";
import { saveConversationTest, type SaveTestProject } from "./save-test-file.js";
import { chooseIn, voteIn } from "./widget-actions.js";
import { emojiOfCode, emojiOfName, sanitizeMessageHtml, SERVER_PATHS } from "./render.js";
import { readWidget } from "./widgets.js";
import type { ReloadFailure } from "./reload-error.js";

export interface WebConsoleOptions {
  world: DevWorld;
  /** The bot's storage (the same store across reloads). */
  storage: KeyValueStore;
  /** The sandbox's movable clock; absent on a real server. */
  clock?: DevClock;
  prefix: string;
  /** Loopback port; 0 picks a free one. */
  port: number;
  /** The running bot (it changes on reload). */
  bot: () => Bot | undefined;
  plugins: () => readonly LoadedPlugin[];
  logger: Logger;
  /** The bot's config and its file, for "save this conversation as a test". */
  project?: SaveTestProject;
  /** Whether plugin files are watched for changes (false under `--no-watch`). Default true. */
  watching?: boolean;
}

/** The last reload, as the indicator shows it. */
export type ReloadStatus = { changed: string; at?: number } & (
  { ok: true; plugins: string[] } | ({ ok: false } & ReloadFailure)
);

/** The running console: the session feeds it what happens; it serves the page. */
export interface WebConsole {
  /** `http://127.0.0.1:PORT/?token=…`: print it; whoever has it can act in the session. */
  readonly url: string;
  /** Hand to `createBot`: the events the bot receives and why it ignored a message. */
  readonly observer: BotObserver;
  handled(h: HandledMessage): void;
  message(m: ShownMessage, via: string | undefined): void;
  reaction(r: ShownReaction, via: string | undefined): void;
  upload(u: ShownUpload, via: string | undefined): void;
  reloaded(status: ReloadStatus): void;
  close(): Promise<void>;
}

/** The bundled page (dist/web when running from dist or from source after a build). */
const ASSET_DIRS = [pathToFileURL(ownPath("dist/web/")), pathToFileURL(ownPath("web/"))];
const ASSETS: Record<string, string> = {
  "/app.js": "text/javascript; charset=utf-8",
  "/app.css": "text/css; charset=utf-8",
};

async function readAsset(name: string): Promise<Buffer> {
  for (const dir of ASSET_DIRS) {
    try {
      return await readFile(fileURLToPath(new URL(name.slice(1), dir)));
    } catch {
      // next candidate
    }
  }
  throw new Error(`the console page ${name} is not built; run \`npm run build\``);
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>topicbot dev console</title><link rel="stylesheet" href="/app.css"></head>
<body><div id="app"></div><script type="module" src="/app.js"></script></body></html>`;

async function readBody(req: IncomingMessage, limit = 20 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RequestError(413, `the body is over ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = (await readBody(req, 1024 * 1024)).toString("utf8");
  try {
    const parsed: unknown = text === "" ? {} : JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new RequestError(400, "the body must be a JSON object");
}

const str = (body: Record<string, unknown>, key: string): string => {
  const value = body[key];
  if (typeof value !== "string" || value.trim() === "")
    throw new RequestError(400, `\`${key}\` must be a non-empty string`);
  return value;
};

/** The faults the console offers, as sandbox fault rules against the bot. */
const FAULTS = {
  "drop-polls": { route: "GET /events", drop: true, times: 2 },
  "send-5xx": { route: "POST /messages", status: 503, code: "SERVICE_UNAVAILABLE", times: 2 },
} as const;

/** The emoji the page offers to react with, by name and as they look. */
const REACTION_CHOICES = ["thumbs_up", "tada", "heart"].map((name) => ({
  name,
  unicode: emojiOfName(name),
}));

/**
 * Starts the console's server on 127.0.0.1. Every request but the page's assets needs the token
 * (`?token=` or the `x-console-token` header) and a loopback Host, so another site open in the
 * browser cannot drive the session.
 *
 * @example
 * const web = await startWebConsole({ world, storage, clock, prefix: "!", port: 0, bot: () => bot, plugins: () => loaded, logger });
 * console.log(web.url);
 */
export async function startWebConsole(options: WebConsoleOptions): Promise<WebConsole> {
  const { world, clock } = options;
  const token = randomBytes(18).toString("base64url");
  const record = new ConsoleRecord();
  const streams = new Set<ServerResponse>();
  let reload: ReloadStatus | undefined;

  const broadcast = (type: string, data: unknown): void => {
    const frame = `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of streams) res.write(frame);
  };

  // Cookies ignore ports: each console names its own (set once it listens).
  let cookieName = "topicbot_console";
  const authorized = (req: IncomingMessage, url: URL): boolean => {
    const cookie = new RegExp(`(?:^|;\\s*)${cookieName}=([\\w-]+)`).exec(
      req.headers.cookie ?? "",
    )?.[1];
    const given = url.searchParams.get("token") ?? req.headers["x-console-token"] ?? cookie;
    if (typeof given !== "string") return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  const state = () => {
    const bot = options.bot();
    return {
      description: world.description,
      remote: world.remote,
      prefix: options.prefix,
      speaker: world.speaker(),
      speakers: world.speakers(),
      bot: bot
        ? { userId: bot.me.userId, fullName: bot.me.fullName, queueId: bot.registration?.queue_id }
        : undefined,
      plugins: options.plugins().map((p) => p.plugin.name),
      commands: bot?.commands().map((c) => ({ name: c.name, description: c.description })) ?? [],
      clock: clock ? { now: clock.now(), offset: clock.offset } : undefined,
      faults: world.sandbox?.faults.list() ?? [],
      watching: options.watching ?? true,
      reactionChoices: REACTION_CHOICES,
      reload,
    };
  };

  /**
   * A message as the page shows it: the server's HTML (made safe, emoji as emoji), its widget as
   * the web client draws it, and who produced it or why it was ignored.
   */
  const shown = (m: Message) => ({
    id: m.id,
    senderId: m.sender_id,
    senderName: m.sender_full_name,
    html: sanitizeMessageHtml(m.content),
    widget: readWidget(m.submessages, m.sender_id),
    timestamp: m.timestamp,
    reactions: m.reactions.map((r) => ({
      emoji: r.emoji_name,
      unicode: r.reaction_type === "unicode_emoji" ? emojiOfCode(r.emoji_code) : undefined,
      userId: r.user_id,
    })),
    produced: record.produced.get(m.id),
    ignored: record.ignored.get(m.id),
  });

  const sidebar = async () => {
    const client = world.client();
    const [{ subscriptions }, { messages }] = await Promise.all([
      client.subscriptions.list({}),
      client.messages.list({
        anchor: "newest",
        num_before: 1000,
        num_after: 0,
        apply_markdown: false,
      }),
    ]);
    const topics = new Map<string, Set<string>>();
    for (const m of messages)
      if (m.type === "stream" && typeof m.display_recipient === "string")
        (
          topics.get(m.display_recipient) ??
          topics.set(m.display_recipient, new Set()).get(m.display_recipient)!
        ).add(m.subject);
    return {
      channels: subscriptions
        .map((s) => ({ name: s.name, topics: [...(topics.get(s.name) ?? [])].reverse() }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  };

  const messagesOf = async (url: URL) => {
    const channel = url.searchParams.get("channel");
    const topic = url.searchParams.get("topic");
    const dm = url.searchParams.get("dm");
    const narrow = channel
      ? [
          { operator: "channel", operand: channel },
          ...(topic ? [{ operator: "topic", operand: topic }] : []),
        ]
      : dm
        ? [{ operator: "dm", operand: dm.split(",").map(Number) }]
        : [];
    const { messages } = await world.client().messages.list({
      anchor: "newest",
      num_before: 200,
      num_after: 0,
      narrow: narrow as never,
      apply_markdown: true,
    });
    return { messages: messages.map(shown) };
  };

  const inside = async () =>
    readInside(
      options.storage,
      options.plugins().map((p) => p.plugin.name),
      options.bot(),
      world.sandbox,
      async () => {
        const client = world.client();
        const [{ streams }, { members }] = await Promise.all([
          client.channels.list({}),
          client.users.list({}),
        ]);
        return {
          channel: (id) => streams.find((s) => s.stream_id === id)?.name,
          user: (id) => members.find((m) => m.user_id === id)?.full_name,
        };
      },
    );

  const needSandbox = (what: string) => {
    if (!world.sandbox || !clock)
      throw new RequestError(
        409,
        `${what} needs the embedded sandbox; on a real server (--me) it is not available`,
      );
    return { sandbox: world.sandbox, clock };
  };

  const actions: Record<
    string,
    (body: Record<string, unknown>, req: IncomingMessage, url: URL) => Promise<unknown>
  > = {
    async "POST /api/send"(body) {
      const text = str(body, "text");
      const place = body.place as Place | undefined;
      if (!place || (place.type !== "channel" && place.type !== "direct"))
        throw new RequestError(
          400,
          "`place` must be {type: channel, channel, topic} or {type: direct, to}",
        );
      const bot = options.bot();
      const to =
        place.type !== "direct"
          ? undefined
          : place.to === "bot" && bot
            ? bot.me.userId
            : (await world.person(place.to)).userId;
      await world.send(place, to, text);
      return {};
    },
    async "POST /api/as"(body) {
      world.speakAs(str(body, "handle"));
      broadcast("state", state());
      return {};
    },
    async "POST /api/channel"(body) {
      await world.createChannel(str(body, "name").replace(/^#/, ""));
      broadcast("sidebar", {});
      return {};
    },
    async "POST /api/react"(body) {
      const messageId = Number(body.messageId);
      const emoji = str(body, "emoji").replace(/^:|:$/g, "");
      await world.client().messages.addReaction({ message_id: messageId, emoji_name: emoji });
      return {};
    },
    /** A zform button: its `reply` goes out as an ordinary message from the speaker, as the web client sends it. */
    async "POST /api/choose"(body) {
      return chooseIn(world, body);
    },
    /** A poll vote as the web client sends it: a `vote` submessage, 1 to add, -1 to take back. */
    async "POST /api/vote"(body) {
      return voteIn(world, body);
    },
    /** Writes the conversation the page shows as a harness test file in the bot's project. */
    async "POST /api/save-test"(body) {
      if (!options.project)
        throw new RequestError(409, "saving a test needs the bot's project (its config file)");
      const bot = options.bot();
      if (!bot) throw new RequestError(409, "the bot is not running (a reload failed?)");
      return saveConversationTest(world, bot, options.plugins(), options.project, body);
    },
    async "POST /api/upload"(_body, req, url) {
      const filename = url.searchParams.get("filename") || "file";
      const data = await readBody(req);
      const result = await world.client().uploads.upload({
        file: new Uint8Array(data),
        filename,
        content_type: req.headers["content-type"] ?? "application/octet-stream",
      });
      return { url: result.url, filename };
    },
    async "POST /api/clock"(body) {
      const ms = Number(body.ms);
      if (!Number.isFinite(ms) || ms <= 0)
        throw new RequestError(400, "`ms` must be a positive number of milliseconds");
      await needSandbox("moving the clock").clock.jump(ms);
      broadcast("state", state());
      return { now: clock!.now() };
    },
    async "POST /api/fault"(body) {
      const { sandbox } = needSandbox("fault injection");
      const kind = str(body, "kind");
      const email = sandbox.bot.email;
      if (kind === "clear") sandbox.faults.clear();
      else if (kind === "expire-queue") sandbox.expireQueues({ userId: sandbox.bot.userId });
      else if (kind in FAULTS)
        sandbox.faults.add({ ...FAULTS[kind as keyof typeof FAULTS], user: email });
      else
        throw new RequestError(
          400,
          `unknown fault "${kind}"; try drop-polls, send-5xx, expire-queue or clear`,
        );
      broadcast("fault", { kind, at: Date.now() });
      broadcast("state", state());
      return {};
    },
    async "GET /api/state"() {
      return state();
    },
    async "GET /api/sidebar"() {
      return sidebar();
    },
    async "GET /api/messages"(_b, _r, url) {
      return messagesOf(url);
    },
    async "GET /api/inside"() {
      return inside();
    },
    async "GET /api/events"() {
      return { events: record.events() };
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const host = req.headers.host ?? "";
    if (!/^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(host)) {
      res
        .writeHead(421, { "content-type": "text/plain" })
        .end("the console answers only on loopback");
      return;
    }
    if (req.method === "GET" && ASSETS[url.pathname]) {
      res.writeHead(200, { "content-type": ASSETS[url.pathname]!, "cache-control": "no-store" });
      res.end(await readAsset(url.pathname));
      return;
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    if (!authorized(req, url)) {
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
      res.end("403: open the console with the URL bot dev printed (its token is missing or wrong)");
      return;
    }
    if (req.method === "GET" && url.pathname === "/") {
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy":
          "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self'",
        "referrer-policy": "no-referrer",
        // Images of uploads and the event stream then carry the token without putting it in URLs.
        "set-cookie": `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      });
      res.end(PAGE);
      return;
    }
    if (req.method === "GET" && url.pathname === "/stream") {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-store",
        connection: "keep-alive",
      });
      res.write(`event: state\ndata: ${JSON.stringify(state())}\n\n`);
      streams.add(res);
      req.on("close", () => streams.delete(res));
      return;
    }
    if (req.method === "GET" && SERVER_PATHS.test(url.pathname)) {
      await proxyUpload(url, res);
      return;
    }
    const action = actions[`${req.method} ${url.pathname}`];
    if (!action) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `no route ${req.method} ${url.pathname}` }));
      return;
    }
    try {
      const body =
        req.method === "POST" && url.pathname !== "/api/upload" ? await readJson(req) : {};
      const result = await action(body, req, url);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(result));
    } catch (error) {
      const status = error instanceof RequestError ? error.status : 400;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
    }
  };

  /** Images in messages point at the chat server's uploads: fetched as the speaker. */
  const proxyUpload = async (url: URL, res: ServerResponse): Promise<void> => {
    const upstream = await world.fetchUpload(url.pathname).catch(() => undefined);
    if (!upstream) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      "content-type": upstream.contentType,
      "cache-control": "private, max-age=60",
    });
    res.end(upstream.data);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.warn({ err: error }, "dev console: request failed");
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  cookieName = `topicbot_console_${port}`;
  // State changes the session does not announce (faults spent, a new queue, the clock) go out each second.
  let lastState = "";
  const heartbeat = setInterval(() => {
    if (streams.size === 0) return;
    const now = JSON.stringify(state());
    if (now !== lastState) broadcast("state", JSON.parse(now));
    else for (const res of streams) res.write(": keep-alive\n\n");
    lastState = now;
  }, 1_000);
  heartbeat.unref();

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    observer: {
      event(event) {
        broadcast("event", record.event(event, clock?.now() ?? Date.now()));
      },
      ignored(messageId, why) {
        record.ignored.set(messageId, why);
        broadcast("ignored", { messageId, why });
      },
    },
    handled(h) {
      record.handled(h);
      broadcast("handled", h);
    },
    message(m, via) {
      if (via) record.sent(m.id, via);
      broadcast("message", { id: m.id, conversation: m.conversation, where: m.where, via });
    },
    reaction(r, via) {
      broadcast("reaction", {
        messageId: r.message.id,
        emoji: r.emoji,
        op: r.op,
        userName: r.userName,
        via,
      });
    },
    upload(u, via) {
      broadcast("upload", { ...u, via });
    },
    reloaded(status) {
      reload = { ...status, at: Date.now() };
      broadcast("state", state());
    },
    async close() {
      clearInterval(heartbeat);
      for (const res of streams) res.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
