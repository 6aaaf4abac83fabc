// The router: commands and hears, both built on one filter primitive, first match wins.
import type { MessageContext } from "./context.js";
import type { Middleware } from "./compose.js";

export type Handler<C extends MessageContext = MessageContext> = (ctx: C) => unknown;

/** A predicate that may also narrow the context type. */
export type Filter<C extends MessageContext> =
  ((ctx: MessageContext) => ctx is C) | ((ctx: MessageContext) => boolean);

export interface CommandSpec {
  description?: string;
  aliases?: string[];
  /** Example invocations shown by `help`. */
  examples?: string[];
}

export interface CommandInfo extends CommandSpec {
  name: string;
  plugin: string;
}

interface Entry {
  plugin: string;
  filter: (ctx: MessageContext) => boolean;
  handler: Handler;
}

/** Where a handler came from, for error reports. */
export interface HandlerOrigin {
  plugin: string;
}

export type HandlerErrorReporter = (
  error: unknown,
  ctx: MessageContext,
  origin: HandlerOrigin,
) => void | Promise<void>;

export class Router {
  readonly #entries: Entry[] = [];
  readonly #commands = new Map<string, CommandInfo>();

  /** Runs `handler` for messages `filter` accepts; the one primitive every verb is built on. */
  filter<C extends MessageContext>(plugin: string, filter: Filter<C>, handler: Handler<C>): void {
    this.#entries.push({ plugin, filter, handler: handler as Handler });
  }

  /** A command: the first word of the addressed text is its name or an alias. */
  command(
    plugin: string,
    name: string,
    spec: CommandSpec,
    handler: Handler<MessageContext & { command: NonNullable<MessageContext["command"]> }>,
  ): void {
    const names = [name, ...(spec.aliases ?? [])].map((n) => n.toLowerCase());
    for (const n of names) {
      const existing = this.#commands.get(n);
      if (existing)
        throw new Error(
          `command "${n}" of plugin "${plugin}" is already defined by plugin "${existing.plugin}"`,
        );
    }
    const info: CommandInfo = { ...spec, name, plugin };
    for (const n of names) this.#commands.set(n, info);
    this.filter(
      plugin,
      (ctx): ctx is MessageContext & { command: NonNullable<MessageContext["command"]> } => {
        if (ctx.addressedVia === null) return false;
        const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(ctx.text);
        if (!match || !names.includes(match[1]!.toLowerCase())) return false;
        ctx.command = { name, args: (match[2] ?? "").trim(), raw: ctx.text };
        return true;
      },
      handler,
    );
  }

  /** A pattern listener: runs when `pattern` matches the addressed text; the match is on `ctx.match`. */
  hear(
    plugin: string,
    pattern: RegExp,
    handler: Handler<MessageContext & { match: RegExpExecArray }>,
  ): void {
    this.filter(
      plugin,
      (ctx): ctx is MessageContext & { match: RegExpExecArray } => {
        pattern.lastIndex = 0;
        const match = pattern.exec(ctx.text);
        if (!match) return false;
        ctx.match = match;
        return true;
      },
      handler,
    );
  }

  /** Every registered command, once each, in registration order. */
  commands(): CommandInfo[] {
    return [...new Set(this.#commands.values())];
  }

  /** The router as the last middleware of the pipeline. */
  middleware(report: HandlerErrorReporter): Middleware<MessageContext> {
    return async (ctx, next) => {
      for (const entry of this.#entries) {
        if (!entry.filter(ctx)) continue;
        try {
          await entry.handler(ctx);
        } catch (error) {
          await report(error, ctx, { plugin: entry.plugin });
        }
        return;
      }
      await next();
    };
  }
}
