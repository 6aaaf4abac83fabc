// The message context handed to middleware and handlers: the message, who sent it, where, and actions.
import type { ApiClient } from "../client/client.js";
import type { Message } from "../api/messages.js";
import type { Logger } from "../log/logger.js";
import { conversationOf, type Conversation } from "./conversation.js";
import type { Addressing, BotIdentity } from "./gate.js";

export interface Sender {
  userId: number;
  email: string;
  fullName: string;
}

export interface CommandInvocation {
  /** The command's canonical name (an alias resolves to it). */
  name: string;
  /** What followed the command name, untouched. */
  args: string;
  /** The whole addressed text, command name included. */
  raw: string;
}

export interface SentMessage {
  id: number;
}

export interface MessageContext {
  message: Message;
  /** The event's flags for the bot (`mentioned`, `read`, ...). */
  flags: string[];
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
  /** The bot's own account. */
  me: BotIdentity;
  /** The full typed client, for every endpoint without an action. */
  api: ApiClient;
  log: Logger;
  /** Free space for middleware to pass data to handlers. */
  state: Record<string, unknown>;
  /** Sends `content` to the same topic, or the same direct-message group. */
  reply(content: string): Promise<SentMessage>;
}

/** Recipients of a reply in a direct-message group: everyone but the bot. */
function replyRecipients(
  conversation: Extract<Conversation, { type: "direct" }>,
  me: BotIdentity,
): number[] {
  const others = conversation.userIds.filter((id) => id !== me.userId);
  return others.length > 0 ? others : [me.userId];
}

export function createMessageContext(init: {
  message: Message;
  flags: string[];
  addressing: Addressing;
  me: BotIdentity;
  api: ApiClient;
  log: Logger;
}): MessageContext {
  const { message, api, me } = init;
  const conversation = conversationOf(message);
  return {
    message,
    flags: init.flags,
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
    me,
    api,
    log: init.log,
    state: {},
    async reply(content) {
      const sent =
        conversation.type === "channel"
          ? await api.messages.send({
              type: "channel",
              to: conversation.streamId,
              topic: conversation.topic,
              content,
            })
          : await api.messages.send({
              type: "direct",
              to: replyRecipients(conversation, me),
              content,
            });
      return { id: sent.id };
    },
  };
}
