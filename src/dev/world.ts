// Where a `bot dev` session chats: how the developer speaks and how the chat is observed (sandbox or server).
import type { ApiClient } from "../client/client.js";
import type { ServerConfig } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import type { Sandbox } from "../sandbox/server.js";
import type { Place } from "./terminal.js";
import { SERVER_PATHS } from "./web/render.js";

/** A message as the terminal shows it. */
export interface ShownMessage {
  id: number;
  senderId: number;
  senderName: string;
  content: string;
  /** Where it is, as people write it: `#general > dev` or `DM Mia Member, Topic Bot`. */
  where: string;
  /** Its conversation, keyed as the runtime's `conversationKey` does (for attribution). */
  conversation: string;
}

/** An emoji reaction added or taken back. */
export interface ShownReaction {
  op: "add" | "remove";
  emoji: string;
  userId: number;
  userName: string;
  /** The message reacted on. */
  message: ShownMessage;
}

/** A file someone uploaded (only the sandbox sees uploads as they happen). */
export interface ShownUpload {
  ownerId: number;
  ownerName: string;
  filename: string;
  bytes: number;
  /** `/user_uploads/...`, as the server answered. */
  url: string;
}

/** Receives what happens in the world, as it happens. */
export interface WorldView {
  message(m: ShownMessage): void;
  /** A message's content was edited (a streamed answer growing, `ctx.edit`); `m` holds the new text. */
  edit(m: ShownMessage): void;
  reaction(r: ShownReaction): void;
  upload(u: ShownUpload): void;
}

/** Someone the developer can talk to with `@name`. */
export interface Person {
  userId: number;
  fullName: string;
  email: string;
  /** The sandbox's handle (`mia`); on a server, the email's local part. */
  handle: string;
}

/**
 * The two things that differ between the embedded sandbox and a configured server: who the
 * developer is and how their lines reach the chat, and where the chat is observed from.
 */
export interface DevWorld {
  /** Where the bot connects (restarts included). */
  readonly server: ServerConfig;
  /** For the banner: `the embedded sandbox is at http://…` or `chatting on the server https://…`. */
  readonly description: string;
  /** True on a real server: one human identity, no channels made on demand. */
  readonly remote: boolean;
  /** Secrets besides the bot's and the config's (the developer's key), for redaction. */
  readonly secrets: readonly string[];
  /** Who the developer speaks as now. */
  speaker(): Person;
  /** A client logged in as the current speaker (reading the chat as they see it, reacting, uploading). */
  client(): ApiClient;
  /** Who the developer may speak as: every seeded human in the sandbox, only themself on a server. */
  speakers(): Person[];
  /** Makes channel `name` with everyone (the bot too) in it; the sandbox only, a server throws saying so. */
  createChannel(name: string): Promise<void>;
  /** An uploaded file (`/user_uploads/…`) or another server image (avatars, emoji), read as the speaker; undefined when it cannot be read. */
  fetchUpload(path: string): Promise<{ contentType: string; data: Buffer } | undefined>;
  /** The embedded sandbox (faults, queues, scheduled messages); absent on a real server. */
  readonly sandbox?: Sandbox;
  /** Speaks as someone else from now on; throws saying why when that is not possible. */
  speakAs(handle: string): void;
  /** The person `@name` means (handle, email, its local part or full name). */
  person(name: string): Promise<Person>;
  /** Sends `text` to `place` (a direct message goes to `to`: one user or several) as the current speaker. */
  send(place: Place, to: number | readonly number[] | undefined, text: string): Promise<void>;
  /** Starts showing what happens to `view`; resolves once observation is under way. */
  observe(view: WorldView, logger: Logger): Promise<void>;
  /** Stops observing and releases everything the world started. */
  close(): Promise<void>;
}

/**
 * Finds `name` among `people`: a handle, an email, an email's local part, or a full name (case
 * and spaces ignored). Unknown or ambiguous names throw, listing what would work.
 *
 * @example
 * findPerson("Mia", people); // the person whose full name is "Mia" or handle "mia"
 */
export function findPerson(name: string, people: readonly Person[]): Person {
  const squash = (s: string): string => s.toLowerCase().replace(/[\s_.-]+/g, "");
  const wanted = name.toLowerCase();
  const exact = people.filter(
    (p) => p.handle.toLowerCase() === wanted || p.email.toLowerCase() === wanted,
  );
  const matches =
    exact.length > 0 ? exact : people.filter((p) => squash(p.fullName) === squash(name));
  if (matches.length === 1) return matches[0]!;
  const shown = (list: readonly Person[]): string =>
    list
      .slice(0, 12)
      .map((p) => p.handle)
      .join(", ") + (list.length > 12 ? ", …" : "");
  if (matches.length > 1)
    throw new Error(`"${name}" could be ${shown(matches)}; use the handle or email`);
  throw new Error(`no user "${name}"; try ${shown(people)}`);
}

/** Sends one line as `client`: to a channel topic, or a direct message to user (or users) `to`. */
export async function sendLine(
  client: ApiClient,
  place: Place,
  to: number | readonly number[] | undefined,
  text: string,
): Promise<void> {
  if (place.type === "channel")
    await client.messages.send({
      type: "channel",
      to: place.channel,
      topic: place.topic,
      content: text,
    });
  else
    await client.messages.send({
      type: "direct",
      to: typeof to === "number" ? [to] : [...to!],
      content: text,
    });
}

/**
 * Fetches an image or upload the message HTML links (`/user_uploads/...`, `/user_avatars/...`) as
 * an account of the world, for the page to show: only those paths and only on the site, through
 * `get` (`fetchThroughClient`: the account's client, its proxy and CA). Anything else is undefined.
 */
export async function fetchUploadAs(
  site: string,
  path: string,
  get: (url: URL) => Promise<{ ok: boolean; contentType: string | undefined; data: Buffer }>,
): Promise<{ contentType: string; data: Buffer } | undefined> {
  const url = new URL(path, site);
  // Checked after the URL is resolved, so `%2e%2e` segments cannot climb out of the image paths.
  if (!SERVER_PATHS.test(url.pathname) || new URL(site).origin !== url.origin) return undefined;
  const res = await get(url);
  if (!res.ok) return undefined;
  return { contentType: res.contentType ?? "application/octet-stream", data: res.data };
}

/** `fetchUploadAs`'s `get` through an account's client (`ApiClient.fetchFile`, with its credentials). */
export function fetchThroughClient(client: ApiClient) {
  return async (url: URL) => {
    const res = await client.fetchFile(url, { authenticate: true });
    const type = res.headers["content-type"];
    return {
      ok: res.status >= 200 && res.status < 300,
      contentType: Array.isArray(type) ? type[0] : type,
      data: res.data,
    };
  };
}
