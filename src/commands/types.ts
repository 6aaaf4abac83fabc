// Argument types for commands: chat-aware ones (user, channel, topic, duration, time) and any zod schema.
import type { ChannelRef, TopicRef } from "../model/command.js";
import { code, escapeText } from "../markdown/escape.js";
import { z } from "zod";
import { AmbiguousNameError, type ChatUser, type Directory } from "../context/directory.js";
import {
  describeSpan,
  formatDuration,
  parseDuration,
  parseTime,
  relativeDuration,
  TIME_LIMITS,
  type TimeReference,
} from "../context/time.js";
import { UsageError, type ParamShape } from "./parse.js";

/** What an argument type may use to turn text into a value. */
export interface ArgEnv {
  directory: Directory;
  /** The user who typed the command. */
  senderId: number;
  /** Milliseconds since the epoch, "now" for relative times. */
  now: number;
  /** The time zone to read wall times in: the sender's profile zone, else the configured one. */
  timeZone(): Promise<string>;
}

const ARG = Symbol("topicbot.arg");

/** An argument type: how many words it reads, how it reads them, and how `help` names it. */
export interface Arg<T> extends ParamShape {
  readonly [ARG]: true;
  /** Shown in usage lines: `<who:user>`. */
  readonly kind: string;
  readonly description: string | undefined;
  /** The value when the argument is absent, for optional arguments with a default. */
  readonly fallback: (() => T) | undefined;
  /** `parse` never returns a promise (lets a command resolve without one). */
  readonly sync: boolean;
  parse(text: string, env: ArgEnv): T | Promise<T>;
  /** The argument may be left out (its value is then undefined). */
  optional(): Arg<T | undefined>;
  /** The argument may be left out and then has this value. */
  default(value: T): Arg<T>;
  /** A few words for `help <command>`. */
  describe(text: string): Arg<T>;
}

/** What `args` and `options` accept for each name: an argument type or any zod schema. */
export type ArgLike = Arg<unknown> | z.ZodType;
export type ArgsShape = Record<string, ArgLike>;

/** The value type an argument spec produces. */
export type ArgValue<A> = A extends Arg<infer T> ? T : A extends z.ZodType ? z.output<A> : never;
/** The typed `ctx.command.args` (or `options`) of a spec. */
export type ArgValues<S> = { -readonly [K in keyof S]: ArgValue<S[K]> };

interface ArgInit<T> {
  kind: string;
  parse(text: string, env: ArgEnv): T | Promise<T>;
  maxWords?: number;
  accepts?(text: string): boolean;
  rest?: boolean;
  flag?: boolean;
  /** `parse` may return a promise (it asks the server). */
  async?: boolean;
}

interface ArgState<T> {
  required: boolean;
  description?: string;
  fallback?: () => T;
}

function makeArg<T>(init: ArgInit<T>, state: ArgState<T> = { required: true }): Arg<T> {
  const rebuild = <U>(changes: Partial<ArgState<U>>): Arg<U> =>
    makeArg(init as unknown as ArgInit<U>, { ...(state as unknown as ArgState<U>), ...changes });
  return {
    [ARG]: true,
    kind: init.kind,
    required: state.required,
    rest: init.rest ?? false,
    flag: init.flag ?? false,
    maxWords: init.rest ? Infinity : (init.maxWords ?? 1),
    accepts: init.accepts,
    description: state.description,
    fallback: state.fallback,
    sync: !init.async,
    parse: init.parse,
    optional: () => rebuild<T | undefined>({ required: false }),
    default: (value: T) => rebuild<T>({ required: false, fallback: () => structuredClone(value) }),
    describe: (text: string) => rebuild<T>({ description: text }),
  };
}

export function isArg(value: unknown): value is Arg<unknown> {
  return typeof value === "object" && value !== null && ARG in value;
}

/** The label of a zod schema in usage lines: `number`, `a|b|c`, `text`. */
function zodKind(schema: z.ZodType): string {
  const def = (schema as { def?: { type?: string; innerType?: z.ZodType; entries?: object } }).def;
  if (!def) return "text";
  if ((def.type === "optional" || def.type === "default") && def.innerType)
    return zodKind(def.innerType);
  if (def.type === "enum" && def.entries) return Object.keys(def.entries).join("|");
  if (def.type === "number" || def.type === "int" || def.type === "bigint") return "number";
  if (def.type === "boolean") return "yes|no";
  return def.type === "string" ? "text" : (def.type ?? "text");
}

/** Wraps a zod schema as an argument type: the word is validated (and coerced) by the schema. */
export function fromSchema<S extends z.ZodType>(schema: S, rest = false): Arg<z.output<S>> {
  const optional = schema.safeParse(undefined).success;
  const arg = makeArg<z.output<S>>({
    kind: zodKind(schema),
    rest,
    parse(text) {
      const result = schema.safeParse(text);
      if (result.success) return result.data;
      throw new UsageError(result.error.issues[0]?.message ?? "invalid value");
    },
  });
  return optional
    ? makeArg(
        { kind: arg.kind, rest, parse: arg.parse },
        { required: false, fallback: () => schema.parse(undefined) as z.output<S> },
      )
    : arg;
}

/** Any argument spec as an Arg. */
export const toArg = (a: ArgLike): Arg<unknown> => (isArg(a) ? a : fromSchema(a));

/** Bounds of a duration argument: milliseconds, or duration text such as `"30d"`. */
export interface DurationBounds {
  min?: number | string;
  max?: number | string;
}

/** Bounds of a time argument, relative to now. */
export interface TimeBounds {
  /** Refuse times that are not after now (a reminder, a deadline). */
  future?: boolean;
  /** How far ahead a time may be: milliseconds or duration text (`"1y"`); default 5 years. */
  maxAhead?: number | string;
  /** How far back a time may be; default 5 years. */
  maxBehind?: number | string;
}

/** A bound given as milliseconds or duration text, checked when the command is declared. */
function spanOf(value: number | string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const ms = typeof value === "number" ? value : parseDuration(value);
  if (ms === undefined || !(ms >= 0) || !Number.isFinite(ms))
    throw new RangeError(`${name}: ${JSON.stringify(value)} is not a duration`);
  return ms;
}

/** A decimal integer within [min, max], or a UsageError saying which bound it broke. */
function boundedInteger(text: string, min: number, max: number, what: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new UsageError(`${code(text)} is not ${what}`);
  const n = Number(text);
  if (n < min || (!Number.isSafeInteger(n) && n < 0))
    throw new UsageError(
      `${code(text)} is less than ${min.toLocaleString("en")}, the least I accept`,
    );
  if (n > max || !Number.isSafeInteger(n))
    throw new UsageError(
      `${code(text)} is more than ${max.toLocaleString("en")}, the most I accept`,
    );
  return n;
}

/**
 * Reads a time as `arg.time(bounds)` does, for code that finds the words itself: the instant, or
 * a UsageError saying it is not a time, not in the future, or beyond a bound (naming the bound).
 *
 * @example
 * readTime("in 999999999 weeks", { now: Date.now(), timeZone: "UTC" }, { future: true });
 * // throws UsageError: `in 999999999 weeks` is more than 5 years ahead; give a time within 5 years
 */
export function readTime(text: string, reference: TimeReference, bounds: TimeBounds = {}): Date {
  const ahead = spanOf(bounds.maxAhead, TIME_LIMITS.maxAheadMs, "maxAhead");
  const behind = spanOf(bounds.maxBehind, TIME_LIMITS.maxBehindMs, "maxBehind");
  const tooFar = () =>
    new UsageError(
      `${code(text)} is more than ${describeSpan(ahead)} ahead; give a time within ${describeSpan(ahead)}`,
    );
  const at = parseTime(text, reference);
  // `in 999999999 weeks` is a time, only one no calendar holds: too far ahead.
  if (!at && relativeDuration(text) !== undefined) throw tooFar();
  if (!at)
    throw new UsageError(
      `${code(text)} is not a time; try \`in 10 minutes\`, \`tomorrow 9:00\` or \`next monday 9am\``,
    );
  const offset = at.getTime() - reference.now;
  if (bounds.future && offset <= 0) throw new UsageError(`${code(text)} is not in the future`);
  if (offset > ahead) throw tooFar();
  if (-offset > behind)
    throw new UsageError(
      `${code(text)} is more than ${describeSpan(behind)} ago; give a time within ${describeSpan(behind)}`,
    );
  return at;
}

/** Whether the text reads as a time, near or absurdly far (`in 999999999 weeks`). */
export const looksLikeTime = (text: string, reference: TimeReference): boolean =>
  relativeDuration(text) !== undefined || parseTime(text, reference) !== undefined;

const USER_MENTION = /^@_?\*\*([^*|]+?)(?:\|(\d+))?\*\*$/;
const CHANNEL_LINK = /^#\*\*([^*>]+)\*\*$/;
const TOPIC_LINK = /^#\*\*([^*>]+)>([^*]*?)(?:@(\d+))?\*\*$/;

async function resolveChannel(name: string, text: string, env: ArgEnv): Promise<ChannelRef> {
  const channel = await env.directory.channelByName(name);
  if (!channel) throw new UsageError(`I don't know a channel ${escapeText(text)}`);
  return { name: channel.name, streamId: channel.streamId };
}

/** The users of `users` the sender can see (a guest may see only some). */
async function accessible(users: ChatUser[], env: ArgEnv): Promise<ChatUser[]> {
  const seen = await Promise.all(users.map((u) => env.directory.canAccess(env.senderId, u.userId)));
  return users.filter((_, i) => seen[i]);
}

async function resolveUser(text: string, env: ArgEnv): Promise<ChatUser> {
  const mention = USER_MENTION.exec(text);
  let user: ChatUser | undefined;
  try {
    if (text.toLowerCase() === "me") user = await env.directory.user(env.senderId);
    else if (mention)
      user = await env.directory.byMention(
        mention[1]!,
        mention[2] === undefined ? undefined : Number(mention[2]),
      );
    else if (text.includes("@")) user = await env.directory.byEmail(text);
    else throw new UsageError(`${code(text)} is not a user; mention one like @**Name**`);
  } catch (error) {
    if (!(error instanceof AmbiguousNameError)) throw error;
    // Only the namesakes the sender can see count (a guest must not learn the others' IDs).
    const visible = await accessible(error.candidates, env);
    if (visible.length > 1)
      throw new UsageError(
        `several users are called ${error.fullName}; pick one with @**${error.fullName}|id**: ${visible
          .map((c) => c.userId)
          .join(", ")}`,
      );
    user = visible[0];
  }
  // A user the sender cannot see (a guest limited by the realm's user access) gets the same answer.
  if (!user || !(await env.directory.canAccess(env.senderId, user.userId)))
    throw new UsageError(`I don't know a user ${escapeText(text)}`);
  return user;
}

/**
 * Argument types for `bot.command(name, { args, options }, handler)`. Any zod schema works too
 * (`z.coerce.number().int()`, `z.enum(["on", "off"])`); a schema that accepts undefined is optional.
 *
 * @example
 * bot.command("remind", {
 *   args: { who: arg.user(), when: arg.time(), what: arg.rest() },
 *   options: { silent: arg.flag() },
 * }, async (ctx) => {
 *   const { who, when, what } = ctx.command.args; // ChatUser, Date, string
 * });
 */
export const arg = {
  /** A user: `@**Name**`, `@**Name|id**`, an email, or `me`; resolved against the server. */
  user: (): Arg<ChatUser> => makeArg({ kind: "user", async: true, parse: resolveUser }),

  /** A channel: `#**name**` or a bare name; resolved against the server. */
  channel: (): Arg<ChannelRef> =>
    makeArg({
      kind: "channel",
      async: true,
      parse(text, env) {
        if (TOPIC_LINK.test(text))
          throw new UsageError(`${escapeText(text)} is a topic; give a channel like #**name**`);
        const link = CHANNEL_LINK.exec(text);
        const name = link ? link[1]! : text.replace(/^#/, "");
        if (name === "" || name.includes("*"))
          throw new UsageError(`${escapeText(text)} is not a channel`);
        return resolveChannel(name, text, env);
      },
    }),

  /** A topic link: `#**channel>topic**` (what the compose box inserts for a topic). */
  topic: (): Arg<TopicRef> =>
    makeArg({
      kind: "topic",
      async: true,
      async parse(text, env) {
        const link = TOPIC_LINK.exec(text);
        if (!link)
          throw new UsageError(`${escapeText(text)} is not a topic link like #**channel>topic**`);
        const channel = await resolveChannel(link[1]!, `#**${link[1]}**`, env);
        const ref: TopicRef = {
          channel: channel.name,
          streamId: channel.streamId,
          topic: link[2]!,
        };
        if (link[3] !== undefined) ref.messageId = Number(link[3]);
        return ref;
      },
    }),

  /**
   * A duration such as `2h30m`, `90s`, `1h 30m` or `10 minutes`, in milliseconds; at most
   * `max` (default 5 years) and at least `min` (default 1 second). Bounds are milliseconds or
   * duration text (`{ max: "30d" }`).
   */
  duration: (bounds: DurationBounds = {}): Arg<number> => {
    const min = spanOf(bounds.min, 1_000, "min");
    const max = spanOf(bounds.max, TIME_LIMITS.maxDurationMs, "max");
    return makeArg({
      kind: "duration",
      maxWords: 6,
      accepts: (text) => parseDuration(text) !== undefined,
      parse(text) {
        const ms = parseDuration(text);
        if (ms === undefined)
          throw new UsageError(`${code(text)} is not a duration; try ${formatDuration(9_000_000)}`);
        if (ms > max)
          throw new UsageError(
            `${code(text)} is longer than ${describeSpan(max)}, the most I accept`,
          );
        if (ms < min)
          throw new UsageError(
            `${code(text)} is shorter than ${describeSpan(min)}, the least I accept`,
          );
        return ms;
      },
    });
  },

  /**
   * A time people type: `in 10 minutes`, `tomorrow 9:00`, `next monday 9am`, `march 5 5pm`,
   * `tonight`, `friday at 5pm`, `17:30`, `2025-03-01 14:00` (docs/commands.md lists more), read
   * in the sender's profile time zone (or the bot's `timeZone`). Bounded to 5 years either side
   * of now unless `maxAhead`/`maxBehind` say otherwise; `future: true` refuses times not after now.
   */
  time: (bounds: TimeBounds = {}): Arg<Date> => {
    spanOf(bounds.maxAhead, TIME_LIMITS.maxAheadMs, "maxAhead");
    spanOf(bounds.maxBehind, TIME_LIMITS.maxBehindMs, "maxBehind");
    return makeArg({
      kind: "time",
      async: true,
      maxWords: 5,
      accepts: (text) => looksLikeTime(text, { now: Date.now(), timeZone: "UTC" }),
      parse: async (text, env) =>
        readTime(text, { now: env.now, timeZone: await env.timeZone() }, bounds),
    });
  },

  /** A whole number, by default any safe integer; `min`/`max` bound it (`{ min: 1, max: 100 }`). */
  integer: (bounds: { min?: number; max?: number } = {}): Arg<number> => {
    const min = bounds.min ?? Number.MIN_SAFE_INTEGER;
    const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
    return makeArg({
      kind: "integer",
      parse: (text) => boundedInteger(text, min, max, "a whole number"),
    });
  },

  /**
   * A message: its ID (`1234`) or a link to it (`.../near/1234`, `.../with/1234`); a positive
   * integer no larger than 2^53 - 1.
   */
  messageId: (): Arg<number> =>
    makeArg({
      kind: "message",
      parse(text) {
        const link = /\/(?:near|with)\/(\d+)(?:[/?#)]|$)/.exec(text);
        return boundedInteger(
          link ? link[1]! : text,
          1,
          Number.MAX_SAFE_INTEGER,
          "a message ID or link",
        );
      },
    }),

  /**
   * The rest of the line as text of `min` (default 1) to `max` characters (default 10,000).
   * Must be the last argument.
   */
  text: (bounds: { min?: number; max?: number } = {}): Arg<string> => {
    const min = bounds.min ?? 1;
    const max = bounds.max ?? 10_000;
    return makeArg({
      kind: "text",
      rest: true,
      parse(text) {
        const length = [...text].length;
        if (length > max)
          throw new UsageError(
            `the text is ${length.toLocaleString("en")} characters long; at most ${max.toLocaleString("en")}`,
          );
        if (length < min)
          throw new UsageError(
            min === 1 ? "the text is empty" : `the text needs at least ${min} characters`,
          );
        return text;
      },
    });
  },

  /** The rest of the line, verbatim; with a schema, validated by it. Must be the last argument. */
  rest: <S extends z.ZodType = z.ZodString>(schema?: S): Arg<z.output<S>> =>
    fromSchema((schema ?? z.string().min(1)) as S, true),

  /** One word of text. */
  string: (): Arg<string> => makeArg({ kind: "text", parse: (text) => text }),

  /** A number: `42`, `-1.5`, `1e3`, `0x1f` (finite; use `arg.integer()` for whole numbers). */
  number: (): Arg<number> =>
    makeArg({
      kind: "number",
      parse(text) {
        // Number("") and Number(" ") are 0: only a 0 needs the check for blank text.
        const n = Number(text);
        if (!Number.isFinite(n) || (n === 0 && text.trim() === ""))
          throw new UsageError(`${code(text)} is not a number`);
        return n;
      },
    }),

  /** One of the given words, matched regardless of case; the value is the word as declared. */
  choice: <const W extends readonly [string, ...string[]]>(...words: W): Arg<W[number]> => {
    const byLower = new Map(words.map((w) => [w.toLowerCase(), w]));
    return makeArg({
      kind: words.join("|"),
      parse(text) {
        const word = byLower.get(text.toLowerCase());
        if (word === undefined)
          throw new UsageError(
            `${code(text)} is not one of ${words.map((w) => `${code(w)}`).join(", ")}`,
          );
        return word;
      },
    });
  },

  /** An option without a value: `--force` makes it true; absent, it is false. */
  flag: (): Arg<boolean> =>
    makeArg<boolean>(
      { kind: "flag", flag: true, parse: () => true },
      { required: false, fallback: () => false },
    ),
};
