// What a handler learns of the command that matched: the invocation on `ctx.command`, and the channels and topics its arguments name.

/** The command that matched, on `ctx.command`. */
export interface CommandInvocation<
  A extends Record<string, unknown> = Record<string, unknown>,
  O extends Record<string, unknown> = Record<string, unknown>,
> {
  /** The command's canonical name (an alias resolves to it). */
  name: string;
  /** The subcommand's canonical name, when the command has subcommands (`add` in `!todo add x`). */
  subcommand?: string;
  /** The positional arguments, typed from the spec. */
  args: A;
  /** The options, typed from the spec; absent flags are false. */
  options: O;
  /** What followed the command name (and the subcommand's, if any), untouched. */
  text: string;
  /** The whole addressed text, command name included. */
  raw: string;
}

/** A channel named by a command argument, resolved against the server. */
export interface ChannelRef {
  name: string;
  streamId: number;
}

/** A topic named by a command argument (`#**channel>topic**`), its channel resolved. */
export interface TopicRef {
  channel: string;
  streamId: number;
  topic: string;
  /** Set when the link points at one message (`#**channel>topic@123**`). */
  messageId?: number;
}
