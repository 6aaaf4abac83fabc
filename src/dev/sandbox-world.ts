// `bot dev` on the embedded sandbox: speak as any seeded user, channels made on demand, the realm observed in-process.
import type { ApiClient } from "../client/client.js";
import type { Clock } from "../sandbox/clock.js";
import { startSandbox, type Sandbox } from "../sandbox/server.js";
import type { StoredMessage } from "../sandbox/model.js";
import { RealmObserver, observeMessage, placeOf } from "../testing/observe.js";
import { People } from "../testing/people.js";
import { storedConversationKey } from "./attribution.js";
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

export interface SandboxWorldOptions {
  /** Port of the sandbox; 0 picks a free one. */
  port: number;
  /** Who the developer speaks as at first (a seeded handle). Default `mia`. */
  as?: string;
  /** The realm's time (scheduled messages); default real time. */
  clock?: Clock;
}

/**
 * Starts an embedded sandbox for one `bot dev` session; the bot logs in as its seeded bot.
 *
 * @example
 * const world = await startSandboxWorld({ port: 0, as: "adam" });
 */
export async function startSandboxWorld(options: SandboxWorldOptions): Promise<DevWorld> {
  const sandbox = await startSandbox({ port: options.port, clock: options.clock });
  try {
    return new SandboxWorld(sandbox, options.as ?? "mia");
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}

const personOf = (a: {
  userId: number;
  fullName: string;
  email: string;
  handle: string;
}): Person => ({
  userId: a.userId,
  fullName: a.fullName,
  email: a.email,
  handle: a.handle,
});

class SandboxWorld implements DevWorld {
  readonly sandbox: Sandbox;
  readonly #people: People;
  #speaker: string;
  #observer: RealmObserver | undefined;
  #stopEdits: (() => void) | undefined;
  readonly server;
  readonly description;
  readonly remote = false;
  readonly secrets: readonly string[] = [];

  constructor(sandbox: Sandbox, as: string) {
    this.sandbox = sandbox;
    this.#people = new People(sandbox);
    this.#people.account(as);
    this.#speaker = as;
    this.server = { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey };
    this.description = `the embedded sandbox is at ${sandbox.url}`;
  }

  speaker(): Person {
    return personOf(this.#people.account(this.#speaker));
  }

  client(): ApiClient {
    return this.#people.client(this.#speaker);
  }

  fetchUpload(path: string): Promise<{ contentType: string; data: Buffer } | undefined> {
    return fetchUploadAs(
      this.sandbox.url,
      path,
      fetchThroughClient(this.#people.client(this.#speaker)),
    );
  }

  speakers(): Person[] {
    return this.#people
      .all()
      .filter((a) => a.userId !== this.sandbox.bot.userId)
      .map(personOf);
  }

  speakAs(handle: string): void {
    this.#people.account(handle);
    this.#speaker = handle;
  }

  async person(name: string): Promise<Person> {
    return findPerson(name, this.#people.all().map(personOf));
  }

  createChannel(name: string): Promise<void> {
    return this.#people.channel(name);
  }

  async send(
    place: Place,
    to: number | readonly number[] | undefined,
    text: string,
  ): Promise<void> {
    if (place.type === "channel") await this.#people.channel(place.channel);
    await sendLine(this.#people.client(this.#speaker), place, to, text);
  }

  async observe(view: WorldView): Promise<void> {
    const realm = this.sandbox.realm;
    const shown = (stored: StoredMessage): ShownMessage => {
      const m = observeMessage(realm, stored);
      return { ...m, where: placeOf(realm, m), conversation: storedConversationKey(stored) };
    };
    const observer = new RealmObserver(realm);
    this.#observer = observer;
    observer.on("message", (m) => {
      const stored = realm.message(m.id);
      if (stored) view.message(shown(stored));
    });
    // Content edits (a streamed answer growing); moves and topic changes are not shown.
    this.#stopEdits = realm.onEvent((event) => {
      if (event.type !== "update_message" || typeof event.message_id !== "number") return;
      const stored = realm.message(event.message_id);
      if (stored && typeof event.content === "string") view.edit(shown(stored));
    });
    observer.on("reaction", (r) => {
      const stored = realm.message(r.messageId);
      if (stored) view.reaction({ ...r, message: shown(stored) });
    });
    observer.on("upload", (u) =>
      view.upload({
        ownerId: u.ownerId,
        ownerName: realm.users.get(u.ownerId)?.fullName ?? `user ${u.ownerId}`,
        filename: u.filename,
        bytes: u.data.length,
        url: u.url,
      }),
    );
  }

  async close(): Promise<void> {
    this.#observer?.close();
    this.#stopEdits?.();
    await this.#people.close();
    await this.sandbox.close();
  }
}
