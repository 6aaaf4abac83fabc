// One click after its card's checks: the action's arguments read as a command's, the handler run with ctx.action and ctx.actor, a refusal answered.
import { code, silentMention } from "../markdown/escape.js";
import type { Logger } from "../log/logger.js";
import type { MessageContext } from "../context/context.js";
import type { Directory } from "../context/directory.js";
import { isTimeZone } from "../context/time.js";
import { compileSpec, resolveInvocation, type CompiledSpec } from "../commands/command.js";
import { UsageError } from "../commands/parse.js";
import type { ArgEnv } from "../commands/types.js";
import type { Handler } from "../dispatch/router.js";
import type { Actor, Card, CardChoice } from "../model/cards.js";
import type { ActionContext, ActionSpec } from "./actions.js";

/** An action as registered: its spec compiled as a command's, with the click's token first. */
export interface RegisteredAction {
  plugin: string;
  name: string;
  spec: ActionSpec;
  compiled: CompiledSpec;
  handler: Handler<ActionContext>;
}

/** A click about to be checked: where it came from and who made it. */
export interface Click {
  ctx: MessageContext;
  actor: Actor;
  /** Unique per click: `m:<message>`, `r:<message>:<user>:<emoji>`, `v:<submessage>`. */
  clickId: string;
  /** Where the click was made (its conversation key), checked against the card's. */
  where: string;
}

/** Posts a card's next version (through the reply guard when a context is at hand). */
export type Poster = (content: string, widget: Record<string, unknown>) => Promise<{ id: number }>;

/** Typed arguments and options of a click. */
export interface ParsedClick {
  args: Record<string, unknown>;
  options: Record<string, unknown>;
}

/** What reading a click's arguments needs. */
export interface ParseEnv {
  directory: Directory;
  log: Logger;
  now(): number;
  timeZone(): string;
}

/** A vote's action reads the option's text after the action name: its own spec, without a token. */
function votesSpec(action: RegisteredAction): CompiledSpec {
  return compileSpec(action.name, {
    ...(action.spec.args && { args: action.spec.args }),
    ...(action.spec.options && { options: action.spec.options }),
  });
}

/** The action's arguments read from the click's text as a command's are; a bad one is answered. */
export async function parseClick(
  action: RegisteredAction,
  click: Click,
  deps: ParseEnv,
  text: string,
): Promise<ParsedClick | undefined> {
  const env: ArgEnv = {
    directory: deps.directory,
    senderId: click.actor.userId,
    now: deps.now(),
    timeZone: async () => {
      const user = await deps.directory.user(click.actor.userId).catch(() => undefined);
      return user?.timezone && isTimeZone(user.timezone) ? user.timezone : deps.timeZone();
    },
  };
  const compiled = click.actor.via === "vote" ? votesSpec(action) : action.compiled;
  try {
    const resolved = await resolveInvocation(compiled, text, env);
    const { card: _card, ...args } = resolved.args;
    return { args, options: resolved.options };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    await refuse(click, deps.log, `that click does not fit ${code(action.name)}: ${error.message}`);
    return undefined;
  }
}

/**
 * Runs the action's handler for an accepted click. A message click's error goes up like a
 * command's (the router reports it); a chip's or vote's, which no router runs, is logged.
 */
export async function runAction(
  action: RegisteredAction,
  click: Click,
  parsed: ParsedClick,
  log: Logger,
  cardOf?: (post: Poster) => { card: Card; choice: CardChoice; token: string },
): Promise<void> {
  const ctx = click.ctx as MessageContext & Partial<Pick<ActionContext, "action" | "actor">>;
  ctx.plugin = action.plugin;
  const raw = ctx.command?.raw ?? click.ctx.text;
  const text = ctx.command?.text ?? raw;
  ctx.command = { name: action.name, args: parsed.args, options: parsed.options, text, raw };
  const post: Poster = (content, widget) =>
    ctx.reply(content, { widget: widget as never }).then((sent) => ({ id: sent.id }));
  ctx.actor = click.actor;
  ctx.action = { name: action.name, args: parsed.args, options: parsed.options, ...cardOf?.(post) };
  if (click.actor.via === "message") {
    await action.handler(ctx as ActionContext);
    return;
  }
  try {
    await action.handler(ctx as ActionContext);
  } catch (error) {
    log.error(
      { err: error, plugin: action.plugin, action: action.name },
      `plugin "${action.plugin}" failed handling a ${click.actor.via} click of action "${action.name}"`,
    );
  }
}

/** Answers a refused click in its conversation, addressed to the clicker (silently). */
export async function refuse(click: Click, log: Logger, why: string): Promise<void> {
  const who = silentMention({ userId: click.actor.userId, fullName: click.actor.fullName });
  const text = why[0] === why[0]!.toUpperCase() ? why : why[0]!.toUpperCase() + why.slice(1);
  log.info({ clickId: click.clickId, why }, "cards: click refused");
  await click.ctx.reply(`${who}: ${text}`);
}
