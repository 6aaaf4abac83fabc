// One reply or send of a message context: the guarded send's steps (post, name the destination, the intent), and what it hands back.
import type { SendParams } from "../api/messages.js";
import { conversationKey, type Conversation } from "../model/conversation.js";
import {
  editMessage,
  postTo,
  replyParams,
  sendParams,
  withContent,
  type ActionEnv,
  type EditChanges,
  type SendTarget,
  type SentIds,
  type SentMessage,
  type Widget,
} from "./actions.js";
import type { GuardedSend, ReplyVia } from "./context-types.js";

/**
 * One reply or send of a context (see `GuardedSend`): its steps are methods, so a reply makes this
 * one object where it made a closure for each step (posting, naming the destination, the intent's
 * parameters), each holding the context's variables, for every reply.
 */
export class ContextSend implements GuardedSend {
  readonly kind: "reply" | "send";
  readonly willEdit: boolean;
  readonly #env: ActionEnv;
  /** Where a reply goes (its conversation); undefined for a send, which has a `target`. */
  readonly #conversation: Conversation | undefined;
  readonly #target: SendTarget | undefined;
  /** The POST /messages parameters without content. */
  readonly #params: Omit<SendParams, "content">;
  readonly #content: string;
  readonly #widget: Widget | undefined;
  readonly #replyVia: ReplyVia | undefined;

  constructor(
    env: ActionEnv,
    kind: "reply" | "send",
    willEdit: boolean,
    conversation: Conversation | undefined,
    target: SendTarget | undefined,
    content: string,
    widget: Widget | undefined,
    replyVia: ReplyVia | undefined,
  ) {
    this.kind = kind;
    this.willEdit = willEdit;
    this.#env = env;
    this.#conversation = conversation;
    this.#target = target;
    this.#params =
      target === undefined
        ? replyParams(conversation!, env.me, env.server().featureLevel)
        : sendParams(target, env.server().featureLevel);
    this.#content = content;
    this.#widget = widget;
    this.#replyVia = replyVia;
  }

  where(): string {
    const target = this.#target;
    return target === undefined
      ? conversationKey(this.#conversation!)
      : JSON.stringify({ to: target.to, topic: target.topic ?? null });
  }

  post(): Promise<SentIds> {
    const replyVia = this.#replyVia;
    if (replyVia === undefined) return postTo(this.#env, this.#params, this.#content, this.#widget);
    return replyVia(this.#content, () =>
      postTo(this.#env, this.#params, this.#content, this.#widget),
    );
  }

  params(): SendParams {
    return withContent(this.#params, this.#content) as SendParams;
  }
}

/**
 * What a reply or send hands back: the IDs it posted, with an `edit` of the (first) message. A
 * reply captured into an outgoing webhook's HTTP answer has no ID to edit.
 */
export function sentMessage(env: ActionEnv, sent: SentIds): SentMessage {
  const edit = (changes: EditChanges): Promise<void> => {
    if (sent.ids.length === 0)
      throw new TypeError(
        "edit: this reply went into the outgoing webhook's HTTP answer and has no message ID",
      );
    return editMessage(env, sent.id, changes);
  };
  // Two literals rather than a conditional spread, which takes V8's slow path for every reply.
  return sent.repeated
    ? { id: sent.id, ids: sent.ids, repeated: true, edit }
    : { id: sent.id, ids: sent.ids, edit };
}
