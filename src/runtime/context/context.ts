// The message context handed to middleware and handlers: the message, who sent it, where, and actions.
import type { ApiClient } from "../../client/client.js";
import type { Message } from "../../api/messages.js";
import type { Logger } from "../../log/logger.js";
import type { KeyValueStore } from "../../storage/store.js";
import { messageActions, type ActionEnv, type MessageActions } from "./actions.js";
import { chatActions, type ChatActions } from "./chat-actions.js";
import type { CommandInvocation } from "../commands/command.js";
import { conversationKey, conversationOf, type Conversation } from "../dispatch/conversation.js";
import type { Addressing, BotIdentity } from "../dispatch/gate.js";
import { openSession, sessionKey, type Dialogs, type Session } from "./session.js";
import { canUserSee } from "./visibility.js";

export interface Sender {
  userId: number;
  email: string;
  fullName: string;
}

export type { SentMessage } from "./actions.js";

export interface AskOptions {
  /** How long to wait for the answer. Default 5 minutes. */
  timeoutMs?: number;
}

export interface MessageContext extends MessageActions, ChatActions {
  message: Message;
  /** The event's personal flags for the bot (`mentioned`, `read`, ...); `flags()` changes flags. */
  messageFlags: string[];
  sender: Sender;
  conversation: Conversation;
  isDirect: boolean;
  /** The message starts with a mention of the bot. */
  isMention: boolean;
  /** How the gate let the message through; null when it did not (only with `respondTo: all`). */
  addressedVia: Addressing["via"];
  /** The text meant for the bot: content without the leading mention or prefix. */
  text: string;
  /** Set by the router when a command matched. */
  command?: CommandInvocation;
  /** Set by `hear` when its pattern matched. */
  match?: RegExpExecArray;
  /** The plugin whose handler is running; set by the router. */
  plugin?: string;
  /** The bot's own account. */
  me: BotIdentity;
  /** The full typed client, for every endpoint without an action. */
  api: ApiClient;
  log: Logger;
  /** Free space for middleware to pass data to handlers. */
  state: Record<string, unknown>;
  /** The handling plugin's state for this conversation (channel topic or DM group). */
  readonly session: Session;
  /** The handling plugin's state for this sender in this conversation. */
  readonly userSession: Session;
  /**
   * Asks the sender a question here and waits for their next message in this conversation,
   * which is then not routed as a command. Resolves undefined after the timeout.
   *
   * @example
   * const answer = await ctx.ask("What's your name?", { timeoutMs: 60_000 });
   * await ctx.reply(answer ? `Hello, ${answer.text}!` : "Never mind.");
   */
  ask(question: string, options?: AskOptions): Promise<MessageContext | undefined>;
  /**
   * Whether the sender can see message `messageId` (DMs: participants; channels: by the server's
   * access rules, guests only where subscribed). Check before acting on an ID a user gave.
   */
  canSee(messageId: number): Promise<boolean>;
}

/** What every context shares: the bot's services. */
export interface ContextServices extends ActionEnv {
  log: Logger;
  /** Where sessions live; one namespace per plugin. */
  sessions: KeyValueStore;
  dialogs: Dialogs<MessageContext>;
  now(): number;
  /** The configured time zone, for human times in `schedule`. */
  timeZone: string;
}

export const DEFAULT_ASK_TIMEOUT_MS = 5 * 60_000;

/** The key under which a question to `userId` in `conversation` waits for its answer. */
export const dialogKey = (conversation: Conversation, userId: number): string =>
  `${conversationKey(conversation)}|${userId}`;

export function createMessageContext(init: {
  message: Message;
  flags: string[];
  addressing: Addressing;
  services: ContextServices;
  /** Called when a handler starts waiting for an answer: its message no longer holds up others. */
  suspend?: () => void;
  /**
   * Swaps where `reply` delivers: given the posting reply, returns the one `ctx` gets (the
   * outgoing-webhook mode captures replies into its HTTP answer).
   */
  replyVia?: (post: MessageActions["reply"]) => MessageActions["reply"];
}): MessageContext {
  const { message, services } = init;
  const conversation = conversationOf(message);
  const sessionOf = (userId?: number): Session =>
    openSession(
      services.sessions.namespace(ctx.plugin ?? "bot"),
      sessionKey({ conversation, userId }),
    );
  let log: Logger | undefined;
  const ctx: MessageContext = {
    message,
    messageFlags: init.flags,
    sender: {
      userId: message.sender_id,
      email: message.sender_email,
      fullName: message.sender_full_name,
    },
    conversation,
    isDirect: conversation.type === "direct",
    isMention: init.addressing.isMention,
    addressedVia: init.addressing.via,
    text: init.addressing.text,
    me: services.me,
    api: services.api,
    // The child logger is made on first use: most messages are never logged about.
    get log() {
      return (log ??= services.log.child({ messageId: message.id }));
    },
    set log(value) {
      log = value;
    },
    state: {},
    get session() {
      return sessionOf();
    },
    get userSession() {
      return sessionOf(message.sender_id);
    },
    async ask(question, options = {}) {
      const key = dialogKey(conversation, message.sender_id);
      const timeoutMs = options.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
      const answer = services.dialogs.wait(key, timeoutMs, question);
      try {
        await ctx.reply(question);
      } catch (error) {
        services.dialogs.cancel(key);
        throw error;
      }
      init.suspend?.();
      return answer;
    },
    canSee: (messageId) => canUserSee(services.api, message.sender_id, messageId),
    ...messageActions(services, conversation),
    ...chatActions(services, message, conversation),
  };
  if (init.replyVia) ctx.reply = init.replyVia(ctx.reply);
  return ctx;
}

/**
 * Offers a message to the open question of its sender in its conversation. Returns true when the
 * message was an answer: taken by the handler that asked, or, for a question asked before a
 * restart (whose handler is gone), answered with a note that the bot lost its place.
 */
export async function takeAnswer(
  ctx: MessageContext,
  dialogs: Dialogs<MessageContext>,
): Promise<boolean> {
  const key = dialogKey(ctx.conversation, ctx.sender.userId);
  if (dialogs.offer(key, ctx)) return true;
  const lost = await dialogs.orphaned(key).catch(() => undefined);
  if (!lost) return false;
  await ctx
    .reply(
      `I asked you "${lost.question}" before I was restarted, and lost my place. Please start again.`,
    )
    .catch((error: unknown) => ctx.log.warn({ err: error }, "could not say a question was lost"));
  return true;
}
