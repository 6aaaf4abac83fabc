// `bot dev` on a configured server: the developer speaks as their own account and watches its event queue.
import { messageEvent, reactionEvent, updateMessageEvent, type AnyEvent } from "../api/events.js";
import type { Message } from "../api/messages.js";
import { createClient, type ApiClient } from "../client/client.js";
import type { ZuliprcCredentials } from "../config/zuliprc.js";
import type { ServerConfig } from "../config/schema.js";
import { EventQueue } from "../inbound/event-queue.js";
import type { Logger } from "../log/logger.js";
import { conversationKey, conversationOf } from "../model/conversation.js";
import type { Place } from "./terminal.js";
import {
  fetchThroughClient,
  fetchUploadAs,
  findPerson,
  sendLine,
  type DevWorld,
  type Person,
  type ShownMessage,
  type WorldView,
} from "./world.js";

export interface ServerWorldOptions {
  /** Where the bot connects (the config's `server`). */
  server: ServerConfig;
  /** The developer's own account (from `--me <zuliprc>`). */
  me: ZuliprcCredentials;
}

/** Messages remembered for the reactions that name them; older ones are fetched when needed. */
const REMEMBERED = 500;

/**
 * Logs in as the developer on the configured server (failing fast on bad credentials) and
 * learns who is there; `observe` then registers the developer's event queue.
 *
 * @example
 * const world = await connectServerWorld({ server: config.server, me: parseZuliprc(text, path) });
 */
export async function connectServerWorld(options: ServerWorldOptions): Promise<DevWorld> {
  // The developer's account, through the bot's connection settings (its proxy and CA).
  const client = createClient({
    site: options.me.site,
    email: options.me.email,
    apiKey: options.me.apiKey,
    proxy: options.server.proxy,
    tls: options.server.tls,
  });
  try {
    const own = await client.users.me();
    const world = new ServerWorld(options, client, own.user_id);
    await world.refreshPeople();
    world.speaker();
    return world;
  } catch (error) {
    await client.close();
    throw error;
  }
}

const personOf = (u: { user_id: number; full_name: string; email: string }): Person => ({
  userId: u.user_id,
  fullName: u.full_name,
  email: u.email,
  handle: u.email.split("@")[0]!,
});

class ServerWorld implements DevWorld {
  readonly #client: ApiClient;
  readonly #userId: number;
  readonly #me: ZuliprcCredentials;
  #logger: Logger | undefined;
  #people: Person[] = [];
  #queue: EventQueue | undefined;
  readonly #messages = new Map<number, ShownMessage>();
  readonly server: ServerConfig;
  readonly description: string;
  readonly remote = true;
  readonly secrets: readonly string[];

  constructor(options: ServerWorldOptions, client: ApiClient, userId: number) {
    this.#client = client;
    this.#userId = userId;
    this.#me = options.me;
    this.server = options.server;
    this.description = `chatting on the server ${options.server.site}`;
    this.secrets = [options.me.apiKey];
  }

  /** Reads the user list again (someone new, or a name not seen yet). */
  async refreshPeople(): Promise<void> {
    const { members } = await this.#client.users.list({});
    this.#people = members.filter((u) => u.is_active).map(personOf);
  }

  speaker(): Person {
    const me = this.#people.find((p) => p.userId === this.#userId);
    if (!me)
      throw new Error(`your account (user ${this.#userId}) is not in the server's user list`);
    return me;
  }

  client(): ApiClient {
    return this.#client;
  }

  fetchUpload(path: string): Promise<{ contentType: string; data: Buffer } | undefined> {
    return fetchUploadAs(this.#me.site, path, fetchThroughClient(this.#client));
  }

  async createChannel(name: string): Promise<void> {
    throw new Error(
      `#${name}: bot dev creates channels in the sandbox only; on ${this.server.site} create it there`,
    );
  }

  speakers(): Person[] {
    return [this.speaker()];
  }

  speakAs(handle: string): void {
    throw new Error(
      `/as ${handle}: on a real server you speak only as yourself (${this.speaker().fullName}, from --me); use --sandbox to play other users`,
    );
  }

  async person(name: string): Promise<Person> {
    try {
      return findPerson(name, this.#people);
    } catch {
      await this.refreshPeople();
      return findPerson(name, this.#people);
    }
  }

  send(place: Place, to: number | readonly number[] | undefined, text: string): Promise<void> {
    return sendLine(this.#client, place, to, text);
  }

  async observe(view: WorldView, logger: Logger): Promise<void> {
    this.#logger = logger;
    const queue = new EventQueue({
      client: this.#client,
      register: { event_types: ["message", "reaction", "update_message"], apply_markdown: false },
      logger,
    });
    this.#queue = queue;
    await queue.start(async (events) => {
      for (const event of events) await this.#deliver(event, view);
    });
  }

  async #deliver(event: AnyEvent, view: WorldView): Promise<void> {
    if (event.type === "message") {
      const parsed = messageEvent.safeParse(event);
      if (parsed.success) view.message(this.#remember(parsed.data.message));
    } else if (event.type === "update_message") {
      // Content edits only (a streamed answer growing); moves are not shown.
      const parsed = updateMessageEvent.safeParse(event);
      if (!parsed.success || parsed.data.content === undefined) return;
      const message = await this.#message(parsed.data.message_id);
      if (!message) return;
      message.content = parsed.data.content;
      view.edit(message);
    } else if (event.type === "reaction") {
      const parsed = reactionEvent.safeParse(event);
      if (!parsed.success) return;
      const r = parsed.data;
      const message = await this.#message(r.message_id);
      if (!message) return;
      const user = this.#people.find((p) => p.userId === r.user_id);
      view.reaction({
        op: r.op,
        emoji: r.emoji_name,
        userId: r.user_id,
        userName: user?.fullName ?? `user ${r.user_id}`,
        message,
      });
    }
  }

  /** A message as shown, remembered (the latest few hundred) for reactions on it. */
  #remember(m: Message): ShownMessage {
    const where =
      m.type === "stream"
        ? `#${typeof m.display_recipient === "string" ? m.display_recipient : m.stream_id} > ${m.subject}`
        : `DM ${(Array.isArray(m.display_recipient) ? m.display_recipient : []).map((r) => r.full_name).join(", ")}`;
    const shown: ShownMessage = {
      id: m.id,
      senderId: m.sender_id,
      senderName: m.sender_full_name,
      content: m.content,
      where,
      conversation: conversationKey(conversationOf(m)),
    };
    this.#messages.set(m.id, shown);
    if (this.#messages.size > REMEMBERED)
      this.#messages.delete(this.#messages.keys().next().value!);
    return shown;
  }

  /** A message seen on the queue, else fetched (undefined when the developer may not read it). */
  async #message(id: number): Promise<ShownMessage | undefined> {
    const known = this.#messages.get(id);
    if (known) return known;
    try {
      const { message } = await this.#client.messages.get({
        message_id: id,
        apply_markdown: false,
      });
      return this.#remember(message);
    } catch (error) {
      this.#logger?.debug({ err: error, messageId: id }, "bot dev: cannot read a reacted message");
      return undefined;
    }
  }

  async close(): Promise<void> {
    await this.#queue?.stop();
    await this.#client.close();
  }
}
