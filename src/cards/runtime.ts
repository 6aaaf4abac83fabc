// The bot's cards at run time: posting and updating cards, actions registered as commands, and every click (reply text, typed, chip, vote) checked and run once.
import type { ApiClient } from "../client/client.js";
import { ApiError } from "../client/errors.js";
import type { Message } from "../api/messages.js";
import type { ReactionEvent } from "../api/events.js";
import type { SubmessageEvent } from "../api/submessages.js";
import type { Logger } from "../log/logger.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import { code, escapeText, silentMention } from "../markdown/escape.js";
import {
  MessageContextObject,
  type ContextServices,
  type MessageContext,
} from "../context/context.js";
import { postTo, replyParams } from "../context/actions.js";
import type { Directory } from "../context/directory.js";
import { compileSpec, type CommandSpec } from "../commands/command.js";
import { arg, type ArgsShape } from "../commands/types.js";
import type { Handler, Router } from "../dispatch/router.js";
import { conversationKey, conversationOf } from "../model/conversation.js";
import type {
  Card,
  CardOrigin,
  CardSpec,
  CardUpdate,
  ClickTransport,
  PollOptions,
} from "../model/cards.js";
import { CardBook, type CardRecord } from "./book.js";
import { admits, describeAllow } from "./permission.js";
import { pollTally, pollVoteOf } from "../context/polls.js";
import {
  canonicalArgs,
  cardContent,
  cardWidget,
  checkChoices,
  clickText,
  expiryMs,
  newToken,
  type Addressing,
} from "./render.js";
import type { ActionContext, ActionSpec } from "./actions.js";
import {
  parseClick,
  refuse,
  runAction,
  type Click,
  type Poster,
  type RegisteredAction,
} from "./clicks.js";

/** The reaction that marks a replaced or closed copy of a card done. */
export const DONE_EMOJI = "check";

export interface CardRuntimeOptions {
  api: ApiClient;
  /** The cards' namespace of the bot's storage. */
  store: KeyValueStore;
  /** The router of the active plugin set (a reload swaps it): where clicks find their actions. */
  router(): Router;
  directory: Directory;
  log: Logger;
  prefix: string;
  now(): number;
  timeZone(): string;
}

/**
 * The cards of one bot. `action` registers an action as a command (`<action> <token> [args]`), so
 * the zform's reply text, the same text typed, and a chip or vote turned into that text all go
 * through one check: the token names an open card of this conversation, the click is one of its
 * choices, not expired, not taken by another click, and the clicker is allowed; then the handler.
 */
export class CardRuntime {
  readonly book: CardBook;
  readonly #o: CardRuntimeOptions;
  /** Each plugin set's actions, by its router (a reload sets up a new router and its actions). */
  readonly #tables = new WeakMap<Router, Map<string, RegisteredAction>>();
  #services: ContextServices | undefined;

  constructor(options: CardRuntimeOptions) {
    this.#o = options;
    this.book = new CardBook(options.store);
  }

  /** At start: what every context shares (reaction and vote clicks get a context of their own). */
  ready(services: ContextServices): void {
    this.#services = services;
  }

  get #env(): ContextServices {
    if (!this.#services) throw new Error("cards: the bot has not started");
    return this.#services;
  }

  #addressing(): Addressing {
    return { prefix: this.#o.prefix, mention: this.#env.me.silentMention };
  }

  /** The actions of `router`'s plugin set (default: the active set's). */
  #actions(router = this.#o.router()): Map<string, RegisteredAction> {
    let table = this.#tables.get(router);
    if (!table) this.#tables.set(router, (table = new Map()));
    return table;
  }

  /**
   * Registers `name` as an action of `plugin`, and as the command its clicks arrive as, in
   * `router` (the plugin set being set up; default: the active set's).
   */
  action(
    plugin: string,
    name: string,
    spec: ActionSpec,
    handler: Handler<ActionContext>,
    router = this.#o.router(),
  ): void {
    const commandSpec: CommandSpec = {
      description: spec.description ?? `Answers a card (${name} <card> ...)`,
      args: { card: arg.string().describe("the card's token"), ...spec.args } as ArgsShape,
      hidden: true,
      ...(spec.options && { options: spec.options }),
      ...(spec.timeoutMs !== undefined && { timeoutMs: spec.timeoutMs }),
    };
    const registered: RegisteredAction = {
      plugin,
      name,
      spec,
      compiled: compileSpec(name, commandSpec),
      handler,
    };
    router.command(plugin, name, commandSpec, (ctx) =>
      this.#messageClick(registered, ctx as unknown as MessageContext),
    );
    this.#actions(router).set(name.toLowerCase(), registered);
  }

  /** Whether a command of this name exists in `router` (built-in approvals pick free names). */
  hasCommand(name: string, router = this.#o.router()): boolean {
    return router.find(name) !== undefined;
  }

  // ---- posting and updating ----

  /** `ctx.card`: posts the card (once per handling, across re-runs) and journals it. */
  async card(origin: CardOrigin, spec: CardSpec, made?: string): Promise<Card> {
    checkChoices(spec.choices, "ctx.card");
    const expiresAt =
      spec.expires === undefined ? undefined : this.#o.now() + expiryMs(spec.expires, "ctx.card");
    const madeKey = made ?? `made:${origin.message.id}:${origin.nextApproval()}`;
    const earlier = await this.#o.store.get<string>(madeKey);
    const known = earlier === undefined ? undefined : await this.book.card(earlier);
    if (known) {
      origin.skipSend();
      return this.#handle(known, (c, w) => origin.post(c, w));
    }
    const token = newToken();
    const content = cardContent(spec, token, this.#addressing(), { expiresAt });
    const sent = await origin.post(content, cardWidget(spec, token));
    const conversation = conversationOf(origin.message);
    const record: CardRecord = {
      token,
      plugin: origin.plugin ?? "bot",
      messageId: sent.id,
      replaced: [],
      place: { conversation, key: conversationKey(conversation) },
      askerId: origin.message.sender_id,
      heading: spec.heading,
      ...(spec.body !== undefined && { body: spec.body }),
      choices: [...spec.choices],
      ...(spec.allow && { allow: spec.allow }),
      ...(expiresAt !== undefined && { expiresAt }),
    };
    await this.book.putCard(record);
    await this.#o.store.set(madeKey, token);
    await this.#chips(record);
    return this.#handle(record, (c, w) => origin.post(c, w));
  }

  /** The bot's chips on the card's current message. */
  async #chips(card: CardRecord): Promise<void> {
    for (const choice of card.choices)
      if (choice.emoji) await this.#react(card.messageId, choice.emoji);
  }

  /** The bot's reaction `emoji` on a message (already there is fine). */
  mark(messageId: number, emoji: string): Promise<void> {
    return this.#react(messageId, emoji);
  }

  async #react(messageId: number, emoji: string): Promise<void> {
    try {
      await this.#o.api.messages.addReaction({ message_id: messageId, emoji_name: emoji });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "REACTION_ALREADY_EXISTS")) throw error;
    }
  }

  #handle(record: CardRecord, post: Poster): Card {
    return {
      token: record.token,
      messageId: record.messageId,
      update: (changes) => this.update(record.token, changes, post),
    };
  }

  /**
   * Re-posts card `token` with `changes` (a widget message cannot be edited), deletes the old
   * message or, where the server refuses, marks it done; the journal keeps the new message ID.
   */
  update(token: string, changes: CardUpdate, post?: Poster): Promise<Card> {
    return this.book.exclusive(`card:${token}`, async () => {
      const card = await this.book.card(token);
      if (!card) throw new Error(`card ${token}: there is no such card`);
      if (changes.choices) checkChoices(changes.choices, "card.update");
      const next: CardRecord = {
        ...card,
        ...(changes.heading !== undefined && { heading: changes.heading }),
        ...(changes.body !== undefined && { body: changes.body }),
        ...(changes.choices && { choices: [...changes.choices] }),
        ...(changes.allow && { allow: changes.allow }),
        ...(changes.done && { done: true }),
      };
      const spec = {
        heading: next.heading,
        body: next.body,
        choices: next.done ? [] : next.choices,
      };
      const content = cardContent(spec, token, this.#addressing(), {
        expiresAt: next.done ? undefined : next.expiresAt,
      });
      const poster: Poster =
        post ??
        ((c, w) =>
          postTo(
            this.#env,
            replyParams(card.place.conversation, this.#env.me, this.#env.server().featureLevel),
            c,
            w as never,
          ));
      const sent = await poster(content, cardWidget(spec, token));
      next.replaced = [...card.replaced, card.messageId];
      next.messageId = sent.id;
      await this.book.putCard(next);
      await this.#retire(card.messageId);
      if (!next.done) await this.#chips(next);
      return this.#handle(next, poster);
    });
  }

  /** The old copy of a card: deleted where the realm lets the bot, else marked done. */
  async #retire(messageId: number): Promise<void> {
    try {
      await this.#o.api.messages.remove({ message_id: messageId });
    } catch (error) {
      this.#o.log.debug({ err: error, messageId }, "cards: old copy not deleted; marking it done");
      await this.#react(messageId, DONE_EMOJI).catch((e: unknown) =>
        this.#o.log.warn({ err: e, messageId }, "cards: could not mark a replaced card done"),
      );
    }
  }

  /** `ctx.poll(..., { action })`: the poll's votes run the action from now on. */
  async watchPoll(
    origin: CardOrigin,
    messageId: number,
    options: string[],
    poll: PollOptions,
  ): Promise<void> {
    if (!poll.action) return;
    if (!this.#actions().has(poll.action.toLowerCase()))
      throw new Error(`ctx.poll: there is no action "${poll.action}" (declare it with bot.action)`);
    const conversation = conversationOf(origin.message);
    await this.book.putPoll({
      messageId,
      plugin: origin.plugin ?? "bot",
      action: poll.action,
      place: { conversation, key: conversationKey(conversation) },
      askerId: origin.message.sender_id,
      options,
      ...(poll.allow && { allow: poll.allow }),
    });
  }

  // ---- clicks ----

  /** A click as a message: the zform's reply text (sent by the clicker's web client) or typed. */
  async #messageClick(action: RegisteredAction, ctx: MessageContext): Promise<void> {
    const token = String(ctx.command!.args.card);
    const argsText = canonicalArgs(ctx.command!.text.trim().replace(/^\S+/, ""));
    const card = await this.book.card(token);
    const choice = card?.choices.findIndex(
      (c) =>
        c.action.toLowerCase() === action.name.toLowerCase() && canonicalArgs(c.args) === argsText,
    );
    const click: Click = {
      ctx,
      actor: { ...ctx.sender, via: "message" },
      clickId: `m:${ctx.message.id}`,
      where: conversationKey(ctx.conversation),
    };
    if (!card)
      return refuse(
        click,
        this.#o.log,
        `There is no card ${code(token)}: check the token, or use the card's own buttons.`,
      );
    if (choice === undefined || choice < 0)
      return refuse(
        click,
        this.#o.log,
        `${code(`${action.name} ${token} ${argsText}`.trim())} is not one of that card's choices.`,
      );
    await this.#click(action, card.token, choice, click);
  }

  /** A reaction on a card: a chip click when its emoji is one of the card's chips. */
  readonly onReaction = (event: ReactionEvent): void => {
    if (event.op !== "add" || event.user_id === this.#services?.me.userId) return;
    void this.#reaction(event.message_id, event.user_id, event.emoji_name).catch((error: unknown) =>
      this.#o.log.error({ err: error, messageId: event.message_id }, "cards: a chip click failed"),
    );
  };

  async #reaction(messageId: number, userId: number, emoji: string): Promise<void> {
    const token = await this.book.tokenOf(messageId);
    const card = token === undefined ? undefined : await this.book.card(token);
    if (!card || card.messageId !== messageId) return;
    const choice = card.choices.findIndex((c) => c.emoji === emoji);
    if (choice < 0) return;
    const clickId = `r:${messageId}:${userId}:${emoji}`;
    if (!(await this.book.firstSight(clickId))) return;
    const chosen = card.choices[choice]!;
    const action = this.#actions().get(chosen.action.toLowerCase());
    if (!action)
      return this.#o.log.warn({ action: chosen.action }, "cards: a chip names no action");
    const click = await this.#syntheticClick(
      messageId,
      userId,
      clickText(chosen, card.token),
      "reaction",
      clickId,
    );
    if (click) await this.#click(action, card.token, choice, click);
  }

  /** A `submessage` event: a vote on a poll whose votes run an action. */
  readonly onSubmessage = (event: SubmessageEvent): void => {
    if (event.sender_id === this.#services?.me.userId) return;
    void this.#vote(event).catch((error: unknown) =>
      this.#o.log.error({ err: error, messageId: event.message_id }, "cards: a vote failed"),
    );
  };

  async #vote(event: SubmessageEvent): Promise<void> {
    const vote = pollVoteOf(event);
    if (!vote || vote.vote !== 1) return;
    const poll = await this.book.poll(vote.messageId);
    if (!poll) return;
    const clickId = `v:${vote.submessageId}`;
    if (!(await this.book.firstSight(clickId))) return;
    const action = this.#actions().get(poll.action.toLowerCase());
    if (!action) return;
    let text = /^canned,(\d+)$/.exec(vote.key)
      ? poll.options[Number(vote.key.slice(7))]
      : undefined;
    if (text === undefined) {
      const { message } = await this.#o.api.messages.get({ message_id: vote.messageId });
      text = pollTally(message.submessages ?? [])?.options.find((o) => o.key === vote.key)?.text;
    }
    if (text === undefined) return;
    const click = await this.#syntheticClick(
      vote.messageId,
      vote.voterId,
      `${poll.action} ${text}`,
      "vote",
      clickId,
    );
    if (!click) return;
    if (!(await admits(poll.allow, click.actor, poll.askerId, this.#o.directory)))
      return refuse(
        click,
        this.#o.log,
        `your vote does not run ${code(poll.action)}: only ${describeAllow(poll.allow)} may.`,
      );
    const parsed = await parseClick(action, click, this.#o, text);
    if (!parsed) return;
    await runAction(action, click, parsed, this.#o.log);
  }

  /**
   * A context for a click that is no message (a chip, a vote): the card's message as if the
   * clicker had sent `text` there. Its sends skip the reply guard (no message of theirs to key them).
   */
  async #syntheticClick(
    messageId: number,
    userId: number,
    text: string,
    via: ClickTransport,
    clickId: string,
  ): Promise<Click | undefined> {
    const user = await this.#o.directory.user(userId).catch(() => undefined);
    if (!user) return undefined;
    const { message } = await this.#o.api.messages.get({
      message_id: messageId,
      apply_markdown: false,
    });
    const clicked: Message = {
      ...message,
      sender_id: user.userId,
      sender_email: user.email,
      sender_full_name: user.fullName,
      content: text,
    };
    const ctx = new MessageContextObject({
      message: clicked,
      flags: [],
      addressing: { via: "mention", isMention: true, text },
      services: { ...this.#env, guard: undefined },
    });
    return {
      ctx,
      actor: { userId: user.userId, email: user.email, fullName: user.fullName, via },
      clickId,
      where: conversationKey(ctx.conversation),
    };
  }

  /** The checks every card click passes, in order; the first that fails is answered. */
  async #click(
    action: RegisteredAction,
    token: string,
    choice: number,
    click: Click,
  ): Promise<void> {
    // Checked and claimed under the card's lock; the handler runs after (it may update the card).
    const claimed = await this.book.exclusive(`card:${token}`, async () => {
      const card = (await this.book.card(token))!;
      const chosen = card.choices[choice]!;
      if (card.place.key !== click.where && !(await this.#movedTo(card, click.where)))
        return refuse(click, this.#o.log, "That card is in another conversation: answer it there.");
      if (card.taken !== undefined && card.taken.clickId !== click.clickId) {
        const by = silentMention({ userId: card.taken.userId, fullName: card.taken.fullName });
        const label = card.choices[card.taken.choice]?.label ?? "a choice";
        return refuse(
          click,
          this.#o.log,
          `That card was already answered: **${escapeText(label)}** by ${by}.`,
        );
      }
      if (
        card.expiresAt !== undefined &&
        this.#o.now() >= card.expiresAt &&
        card.taken === undefined
      )
        return refuse(
          click,
          this.#o.log,
          `That card expired <time:${new Date(card.expiresAt).toISOString()}>.`,
        );
      if (card.taken === undefined && card.done)
        return refuse(click, this.#o.log, "That card is closed.");
      const allow = [card.allow, action.spec.allow];
      for (const rules of allow)
        if (!(await admits(rules, click.actor, card.askerId, this.#o.directory)))
          return refuse(click, this.#o.log, `only ${describeAllow(rules)} may answer that card.`);
      const parsed = await parseClick(
        action,
        click,
        this.#o,
        `${token} ${canonicalArgs(chosen.args)}`,
      );
      if (!parsed) return;
      if (card.taken === undefined) {
        card.taken = {
          choice,
          userId: click.actor.userId,
          fullName: click.actor.fullName,
          clickId: click.clickId,
          at: this.#o.now(),
        };
        card.done = true;
        await this.book.putCard(card);
      }
      return { parsed, card, chosen };
    });
    if (claimed)
      await runAction(action, click, claimed.parsed, this.#o.log, (post) => ({
        card: this.#handle(claimed.card, post),
        choice: claimed.chosen,
        token: claimed.card.token,
      }));
  }

  /**
   * Whether the card's message now lies in conversation `where` (its topic was renamed or moved
   * since it was posted); the journal then follows it.
   */
  async #movedTo(card: CardRecord, where: string): Promise<boolean> {
    const { message } = await this.#o.api.messages.get({ message_id: card.messageId });
    const conversation = conversationOf(message);
    if (conversationKey(conversation) !== where) return false;
    card.place = { conversation, key: where };
    await this.book.putCard(card);
    return true;
  }

  // ---- after a restart ----

  /**
   * At start: chips added to open cards while the bot was away are clicks too, and so are votes
   * on action polls (events are not caught up like messages); each is taken once (`firstSight`).
   */
  async reconcile(): Promise<void> {
    for (const messageId of await this.book.pollIds()) {
      try {
        const { message } = await this.#o.api.messages.get({ message_id: messageId });
        for (const sub of message.submessages ?? [])
          if (sub.sender_id !== this.#env.me.userId)
            await this.#vote({
              id: -1,
              type: "submessage",
              msg_type: sub.msg_type,
              message_id: messageId,
              submessage_id: sub.id,
              sender_id: sub.sender_id,
              content: sub.content,
            });
      } catch (error) {
        this.#o.log.warn({ err: error, poll: messageId }, "cards: could not read a poll's votes");
      }
    }
    for (const card of await this.book.openCards()) {
      if (!card.choices.some((c) => c.emoji)) continue;
      try {
        const { message } = await this.#o.api.messages.get({ message_id: card.messageId });
        for (const r of message.reactions ?? [])
          if (r.user_id !== this.#env.me.userId)
            await this.#reaction(card.messageId, r.user_id, r.emoji_name);
      } catch (error) {
        this.#o.log.warn(
          { err: error, card: card.token },
          "cards: could not read a card's reactions",
        );
      }
    }
  }
}
