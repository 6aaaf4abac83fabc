// Streamed answers: post a message, then edit it as text arrives, paced, continued past the length limit and the edit window; and `ctx.stream` wired to the bot's client.
import type { TypingParams } from "../api/typing.js";
import { editWindowOf } from "../client/edit-window.js";
import { MessageEditWindowError } from "../client/errors.js";
import { graphemeBoundary } from "../markdown/safe-cut.js";
import type { Conversation } from "../model/conversation.js";
import { editMessage, type ActionEnv } from "./actions.js";
import { react, unreact, type MessageRef } from "./chat-actions.js";

/** Text chunks from a model or any producer: an async iterable, or a web ReadableStream. */
export type TextSource =
  AsyncIterable<string> | Iterable<string> | ReadableStream<string> | ReadableStream<Uint8Array>;

/** What a stream does on the server; the runtime passes the context's exactly-once versions. */
export interface StreamIO {
  /**
   * Posts a new message (`ctx.reply`: journaled, so a re-run after a crash gets the message it
   * posted then, marked `repeated`, and the stream goes on editing that one).
   */
  post(content: string): Promise<{ id: number; repeated?: boolean }>;
  /** Replaces a posted message's content. */
  edit(id: number, content: string): Promise<void>;
  /** Shows or clears the typing notice in the conversation (best effort). */
  typing?(active: boolean): Promise<void>;
}

/**
 * The request budget streams share (the client's `Pacer` is one): open streams split a part of
 * it equally, and their edits wait while replies need what is left.
 */
export interface StreamBudget {
  /** Counts this stream as open until the returned function is called. */
  openStream(): () => void;
  /** Least milliseconds between two edits of one stream now. */
  editInterval(): number;
  /** Milliseconds an edit waits now, beyond its interval, so replies keep their reserve. */
  editDelay(): number;
}

export interface StreamOptions {
  /** The server's `max_message_length`. */
  maxLength: number;
  /** Least time between two edits of one message, in ms. Default 1000. */
  minEditIntervalMs?: number;
  /** Extra wait the server's rate limit asks for before the next request, in ms (client pacing). */
  pacing?: () => number;
  /** The budget shared with the other streams and replies of the account (`ctx.stream`: the client's pacer). */
  budget?: StreamBudget;
  /**
   * The server's content edit window in seconds (`realm_message_content_edit_limit_seconds`;
   * null: none; 0: editing is off, so the answer is posted once, whole, when it ends). A message
   * older than the window less `ROLL_OVER_MARGIN_SECONDS` (at most a quarter of it) is left as it
   * is and the answer goes on in a new message; so it does on the server's edit-window refusal.
   * Default: no window known (only the refusal rolls over).
   */
  editWindowSeconds?: () => number | null;
  /** The clock message ages are read on (the bot's). Default `now`. */
  serverNow?: () => number;
  /** The marker appended when the source fails. */
  interruptedMarker?: string;
  /**
   * Messages one answer may take (continuations past `maxLength` included). Default 20, within
   * the loop guard's default allowance. The last one ends with `cutMarker` and the rest of the
   * text is dropped; a continuation the server or the loop guard refuses ends the answer the same
   * way, the marker edited into the message before it.
   */
  maxMessages?: number;
  /** The marker ending an answer cut short by `maxMessages` or a refused continuation. */
  cutMarker?: string;
  /** Told once why an answer was cut short (the context logs it). */
  onCut?: (
    reason: string,
    detail: { messages: number; shownChars: number; totalChars: number },
  ) => void;
  /** How often the typing notice is renewed while the stream is open, in ms. Default 10 s. */
  typingEveryMs?: number;
  /** Stops the stream early (the text so far is kept, with the marker). */
  signal?: AbortSignal;
  /**
   * Applied to the text before it is shown, each time (it sees the whole text so far, so a
   * mention split across chunks is caught): `escapeText` for text a user can steer, such as a
   * model's answer (`answer()` passes it), so it cannot ping anyone. Default: shown as it is.
   */
  neutralize?: (text: string) => string;
  /** Injectable for tests. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** How a stream ended. */
export interface StreamResult {
  /** The messages the answer occupies, in order. */
  messageIds: number[];
  /** The whole text as streamed (without the marker). */
  text: string;
  /** False when the source failed, the stream was aborted or the answer was cut short. */
  complete: boolean;
  /** Why the answer was cut short (it ends with the cut marker), if it was. */
  cut?: string;
  /** Edits sent (the first post of each message not counted). */
  edits: number;
  /** Times the answer went on in a new message because the edit window closed on one. */
  rollovers: number;
  error?: unknown;
}

export const DEFAULT_INTERRUPTED_MARKER = "\n\n*[The answer was interrupted.]*";
export const DEFAULT_CUT_MARKER = "\n\n*[The answer was cut here: it was too long.]*";
export const DEFAULT_MAX_MESSAGES = 20;
/** How long before the edit window closes a stream leaves a message and goes on in a new one. */
export const ROLL_OVER_MARGIN_SECONDS = 30;

/** Reads any supported source as an async iterable of strings. */
export async function* textChunks(source: TextSource): AsyncIterable<string> {
  if (isReadableStream(source)) {
    const reader = (source as ReadableStream<string | Uint8Array>).getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        yield typeof value === "string" ? value : decoder.decode(value, { stream: true });
      }
      const tail = decoder.decode();
      if (tail) yield tail;
    } finally {
      reader.releaseLock();
    }
    return;
  }
  for await (const chunk of source as AsyncIterable<string>) yield chunk;
}

function isReadableStream(
  source: TextSource,
): source is ReadableStream<string> | ReadableStream<Uint8Array> {
  return typeof (source as ReadableStream).getReader === "function";
}

/**
 * Where to cut `text` so the head fits in `limit` characters: the last paragraph break, else the
 * last line break, else the last space in the second half of the window; else a hard cut
 * between grapheme clusters (never inside a surrogate pair).
 */
export function cutPoint(text: string, limit: number): number {
  if (text.length <= limit) return text.length;
  const window = text.slice(0, limit);
  for (const boundary of ["\n\n", "\n", " "]) {
    const at = window.lastIndexOf(boundary);
    if (at >= limit / 2) return at + boundary.length;
  }
  return graphemeBoundary(text, limit);
}

/**
 * Streams `source` into the conversation: the first non-blank text is posted at once, later text
 * is applied by editing, never faster than the edit interval or the server's pacing allows; text
 * beyond `maxLength` continues in a new message; the last edit happens when the source ends. A
 * failing source leaves the partial text plus a marker, and the result says so.
 *
 * @example
 * const result = await streamAnswer(model.textStream, { post: ctx.reply, edit }, { maxLength: 10_000 });
 */
export async function streamAnswer(
  source: TextSource,
  io: StreamIO,
  options: StreamOptions,
): Promise<StreamResult> {
  const now = options.now ?? Date.now;
  const serverNow = options.serverNow ?? now;
  const budget = options.budget;
  const sleep = options.sleep ?? defaultSleep;
  const minInterval = options.minEditIntervalMs ?? 1_000;
  const marker = options.interruptedMarker ?? DEFAULT_INTERRUPTED_MARKER;
  const cutMarker = options.cutMarker ?? DEFAULT_CUT_MARKER;
  const maxMessages = Math.max(1, options.maxMessages ?? DEFAULT_MAX_MESSAGES);
  // Room for a marker, so an interrupted or cut message still fits.
  const limit = Math.max(1, options.maxLength - Math.max(marker.length, cutMarker.length));

  const messageIds: number[] = [];
  let full = "";
  /** Characters of `full` that went into earlier, sealed messages. */
  let sealed = 0;
  /**
   * The message being written: its ID once posted, what the server shows, how many characters of
   * `full` past `sealed` that is, and when it was posted (on `serverNow`).
   */
  interface Current {
    id: number | undefined;
    shown: string;
    raw: number;
    postedAt: number;
  }
  const blank = (): Current => ({ id: undefined, shown: "", raw: 0, postedAt: 0 });
  let current = blank();
  let lastWrite = Number.NEGATIVE_INFINITY;
  let edits = 0;
  let rollovers = 0;
  /** What the last sealed message shows (its text as given to `show`), for a late cut marker. */
  let previous: { id: number; content: string } | undefined;
  let cutReason: string | undefined;
  let ended = false;
  let dirty = false;
  let error: unknown;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    dirty = true;
    wake?.();
    wake = undefined;
  };

  const reader = (async () => {
    try {
      for await (const chunk of textChunks(source)) {
        if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
        full += chunk;
        notify();
      }
    } catch (e) {
      error = e;
    } finally {
      ended = true;
      notify();
    }
  })();

  const aborted = new Promise<void>((resolve) => {
    const stop = (): void => {
      if (ended) return;
      error ??= options.signal?.reason ?? new Error("aborted");
      ended = true;
      notify();
      resolve();
    };
    if (options.signal?.aborted) stop();
    else options.signal?.addEventListener("abort", stop, { once: true });
    void reader.then(resolve);
  });

  const neutralize = options.neutralize ?? ((text: string): string => text);
  /** Whether `text` fits one message once neutralized (escaping may lengthen it). */
  const fits = (text: string): boolean => neutralize(text).length <= limit;

  /** The window in seconds (null: none), read afresh each time: a realm event may change it. */
  const windowSeconds = (): number | null => options.editWindowSeconds?.() ?? null;
  /** Whether the current message is too old to edit safely. */
  const expired = (): boolean => {
    const window = windowSeconds();
    if (window === null || current.id === undefined) return false;
    const margin = Math.min(ROLL_OVER_MARGIN_SECONDS, window / 4);
    return (serverNow() - current.postedAt) / 1000 >= window - margin;
  };
  /**
   * Leaves the current message as it stands and goes on in a new one; false (the answer cut
   * short) when the answer has no message left to go on in.
   */
  const rollOver = async (): Promise<boolean> => {
    if (current.id === undefined) return true;
    if (messageIds.length >= maxMessages) {
      // The last message can take no more text, and most likely no marker either.
      const shown = full.slice(sealed, sealed + current.raw).replace(/\s+$/, "");
      await io.edit(current.id, neutralize(shown + cutMarker)).catch(() => undefined);
      cutShort(`the answer outlived the edit window in ${maxMessages} messages`);
      return false;
    }
    previous = { id: current.id, content: full.slice(sealed, sealed + current.raw) };
    sealed += current.raw;
    current = blank();
    rollovers++;
    return true;
  };

  /**
   * Shows `content` (covering `raw` characters of `full` past `sealed`) in the current message,
   * posting it if need be. False when the server refused the edit as past the edit window: the
   * answer rolled over and the caller writes again.
   */
  const show = async (content: string, raw: number): Promise<boolean> => {
    // A continuation does not open with the blank the text had at the cut.
    const trimmed = content.replace(/\s+$/, "");
    const text = neutralize(sealed > 0 ? trimmed.replace(/^\s+/, "") : trimmed);
    if (text.trim() === "" || text === current.shown) return true;
    const edit = async (id: number): Promise<boolean> => {
      try {
        await io.edit(id, text);
      } catch (e) {
        if (!(e instanceof MessageEditWindowError)) throw e;
        await rollOver();
        return false;
      }
      edits++;
      return true;
    };
    if (current.id === undefined) {
      let posted: { id: number; repeated?: boolean };
      try {
        posted = await io.post(text);
      } catch (e) {
        // A continuation refused (the loop guard, the server): the answer ends in the message
        // before, which says so.
        if (previous === undefined) throw e;
        error ??= e;
        // The message before may be past its edit window: then it stays without the marker.
        await io
          .edit(previous.id, neutralize(previous.content.replace(/\s+$/, "") + cutMarker))
          .then(() => edits++)
          .catch((refused: unknown) => {
            if (!(refused instanceof MessageEditWindowError)) throw refused;
          });
        cutShort(`a continuation was refused: ${e instanceof Error ? e.message : String(e)}`);
        return true;
      }
      current.id = posted.id;
      current.postedAt = serverNow();
      messageIds.push(current.id);
      // A message posted before a crash shows that run's text: bring it up to date.
      if (posted.repeated && !(await edit(current.id))) return false;
    } else if (!(await edit(current.id))) return false;
    current.shown = text;
    current.raw = raw;
    lastWrite = now();
    return true;
  };

  const cutShort = (reason: string): void => {
    cutReason = reason;
    options.onCut?.(reason, {
      messages: messageIds.length,
      shownChars: sealed,
      totalChars: full.length,
    });
  };

  /** Brings the server up to date with `full`: edits, and new messages past the limit. */
  const write = async (final: boolean): Promise<void> => {
    // With editing off, the answer is posted once, whole, at the end.
    if (!final && windowSeconds() === 0) return;
    for (;;) {
      if (cutReason !== undefined) return;
      if (expired() && !(await rollOver())) return;
      const rest = full.slice(sealed);
      if (fits(rest)) {
        if (await show(final && error !== undefined ? rest + marker : rest, rest.length)) return;
        continue;
      }
      let window = limit;
      let cut = cutPoint(rest, window);
      // Escaping may lengthen the head: narrow the window by the excess until it fits.
      while (cut > 1 && !fits(rest.slice(0, cut))) {
        window = Math.max(1, window - (neutralize(rest.slice(0, cut)).length - limit));
        cut = cutPoint(rest, window);
      }
      const last = messageIds.length - (current.id === undefined ? 0 : 1) >= maxMessages - 1;
      if (last) {
        if (!(await show(rest.slice(0, cut) + cutMarker, cut))) continue;
        if (cutReason === undefined) {
          sealed += cut;
          cutShort(`the answer is longer than ${maxMessages} messages`);
        }
        return;
      }
      if (!(await show(rest.slice(0, cut), cut))) continue;
      if (current.id !== undefined) previous = { id: current.id, content: rest.slice(0, cut) };
      sealed += cut;
      current = blank();
    }
  };

  let typingTimer: NodeJS.Timeout | undefined;
  const typing = (active: boolean): Promise<void> =>
    io.typing ? io.typing(active).catch(() => undefined) : Promise.resolve();
  if (io.typing) {
    void typing(true);
    typingTimer = setInterval(() => void typing(true), options.typingEveryMs ?? 10_000);
    typingTimer.unref?.();
  }

  const closeShare = budget?.openStream();
  try {
    while (!ended) {
      if (!dirty) await new Promise<void>((resolve) => (wake = resolve));
      if (ended) break;
      // The first words go out at once; later edits keep to this stream's part of the budget
      // and wait while replies need what is left.
      const posted = current.id !== undefined || messageIds.length > 0;
      const interval = Math.max(minInterval, posted ? (budget?.editInterval() ?? 0) : 0);
      const wait = Math.max(
        interval - (now() - lastWrite),
        options.pacing?.() ?? 0,
        posted ? (budget?.editDelay() ?? 0) : 0,
      );
      if (wait > 0) await sleep(wait, options.signal);
      dirty = false;
      await write(false);
      // A cut answer takes no more text: its source is not waited for.
      if (cutReason !== undefined) break;
    }
    // An aborted stream does not wait for a source that may never yield again.
    if (cutReason === undefined) {
      await aborted;
      await write(true);
    }
  } finally {
    closeShare?.();
    if (typingTimer) clearInterval(typingTimer);
    await typing(false);
  }
  return {
    messageIds,
    text: full,
    complete: error === undefined && cutReason === undefined,
    edits,
    rollovers,
    ...(error !== undefined && { error }),
    ...(cutReason !== undefined && { cut: cutReason }),
  };
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Where the typing notice of a conversation goes (POST /typing). */
export function typingTarget(conversation: Conversation): Omit<TypingParams, "op"> {
  return conversation.type === "channel"
    ? { type: "stream", stream_id: conversation.streamId, topic: conversation.topic }
    : { type: "direct", to: conversation.userIds };
}

/** `ctx.stream`'s options: the stream's, and an acknowledgement. */
export type ContextStreamOptions = Partial<StreamOptions> & {
  /**
   * An emoji (by name, e.g. `eyes`) the bot reacts with on the message handled while the
   * answer is written, taken back when it ends: an acknowledgement a phone shows at once.
   */
  ack?: string;
};

/**
 * Streams an answer into a context's conversation (`ctx.stream`): posts through `post` (the
 * context's guarded reply), edits and shows typing through the bot's client, within the server's
 * limits (`options` go over those); with `ack`, reacts on `message` meanwhile.
 */
export async function streamToConversation(
  env: ActionEnv & { now(): number },
  message: MessageRef,
  conversation: Conversation,
  post: StreamIO["post"],
  source: TextSource,
  options: ContextStreamOptions,
): Promise<StreamResult> {
  const { ack, ...streamOptions } = options;
  if (ack === undefined) return streamInto(env, conversation, post, source, streamOptions);
  // Best effort: a reaction the server refuses (or one left by a crashed run) is no failure.
  await react(env, message, ack).catch(() => undefined);
  try {
    return await streamInto(env, conversation, post, source, streamOptions);
  } finally {
    await unreact(env, message, ack).catch(() => undefined);
  }
}

function streamInto(
  env: ActionEnv & { now(): number },
  conversation: Conversation,
  post: StreamIO["post"],
  source: TextSource,
  options: Partial<StreamOptions>,
): Promise<StreamResult> {
  const where = typingTarget(conversation);
  return streamAnswer(
    source,
    {
      post,
      edit: (id, content) => editMessage(env, id, { content }),
      typing: async (active) => {
        await env.api.typing.set({ op: active ? "start" : "stop", ...where });
      },
    },
    {
      maxLength: env.server().maxMessageLength,
      // Within the server's limits: the edit window the event queue learned, message ages on
      // the bot's clock, and the request budget shared with the account's other streams.
      editWindowSeconds: () => editWindowOf(env.api),
      serverNow: () => env.now(),
      ...(env.api.pacer && { budget: env.api.pacer }),
      ...options,
    },
  );
}
