// What `bot.action` declares and what its handler gets: typed arguments like a command's, the card and choice clicked, and who clicked.
import type { InvocationOf } from "../commands/command.js";
import type { ArgsShape, ArgValues } from "../commands/types.js";
import type { CommandContext, NoArgs } from "../dispatch/router.js";
import type { Actor, Allow, Card, CardChoice } from "../model/cards.js";

/** What `bot.action(name, spec, handler)` declares. */
export interface ActionSpec<A extends ArgsShape = ArgsShape, O extends ArgsShape = ArgsShape> {
  /** Shown by `help` (the action is also a command: `<name> <card> [args]`). */
  description?: string;
  /** Arguments, typed as a command's; a choice gives them as text (`args: "v1.2"`). */
  args?: A;
  options?: O;
  /** Who may run this action from any card (besides the card's own `allow`). */
  allow?: Allow;
  /** Longest the handler may run (see `CommandSpec.timeoutMs`). */
  timeoutMs?: number | false;
}

/** The click an action handler runs for (`ctx.action`). */
export interface ActionInvocation<A = Record<string, unknown>, O = Record<string, unknown>> {
  name: string;
  args: A;
  options: O;
  /** The card clicked (absent for a poll vote): `update` re-posts it. */
  card?: Card;
  /** The choice clicked (absent for a poll vote). */
  choice?: CardChoice;
  /** The card's token. */
  token?: string;
}

/**
 * An action handler's context: a command's (the click arrives as, or is turned into, the
 * message `<action> <token> [args]`), with `ctx.action` and `ctx.actor`.
 */
export type ActionContext<A extends ArgsShape = NoArgs, O extends ArgsShape = NoArgs> = Omit<
  CommandContext<A, O>,
  "command"
> & {
  command: InvocationOf<A, O>;
  action: ActionInvocation<ArgValues<A>, ArgValues<O>>;
  /** Who clicked, and how (`message`, `reaction`, `vote`). */
  actor: Actor;
};
