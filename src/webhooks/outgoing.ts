// Outgoing-webhook mode: the server POSTs a mention or DM to the bot, the bot answers in the response body.
import { z } from "zod";
import { message as messageSchema, type Message } from "../api/messages.js";
import { silentLogger, type Logger } from "../log/logger.js";
import { safeEqual } from "./auth.js";
import { WebhookError, type RouteDefinition } from "./receiver.js";

/** The JSON body the server POSTs (OpenAPI `/zulip-outgoing-webhook`). Unknown keys pass through. */
export const outgoingWebhookPayload = z.looseObject({
  bot_email: z.string(),
  bot_full_name: z.string(),
  /** The message content as raw Markdown. */
  data: z.string(),
  /** `mention` or `direct_message` (`private_message` before feature level 201). */
  trigger: z.string(),
  token: z.string(),
  /** The message in `GET /messages` form, plus `rendered_content`. */
  message: messageSchema.extend({ rendered_content: z.string().optional() }),
});

/** The `outgoingWebhook:` config section: where to listen and the bot's token. */
export const outgoingWebhookConfig = z
  .strictObject({
    path: z
      .string()
      .regex(/^\/[\w\-./~%]*$/, "a path starts with / and has no query")
      .default("/outgoing")
      .describe("Route path on the receiver."),
    token: z
      .string()
      .min(8, "the outgoing-webhook token has at least 8 characters")
      .describe("`token` from the outgoing-webhook bot's downloaded zuliprc; prefer `${VAR}`."),
  })
  .describe(
    "Outgoing-webhook mode: the server POSTs mentions and direct messages here and the reply goes back in the answer (those messages are then not also handled from the event queue).",
  );
export type OutgoingWebhookConfig = z.output<typeof outgoingWebhookConfig>;

/** What the bot's message handler receives. */
export interface OutgoingMessage {
  message: Message & { rendered_content?: string };
  /** Raw Markdown content (`data`). */
  data: string;
  /** Why the server called: `private_message` is reported as `direct_message`. */
  trigger: "mention" | "direct_message" | (string & {});
  botEmail: string;
  botFullName: string;
}

export interface OutgoingWebhookOptions {
  /** Route path. Default `/outgoing`. */
  path?: string;
  /** The bot's outgoing-webhook token (`token` in its downloaded zuliprc). */
  token: string;
  /** Runs the middleware and plugins; resolves with the reply's Markdown, or undefined for none. */
  handleMessage(message: OutgoingMessage): Promise<string | undefined>;
  logger?: Logger;
  /** Largest body accepted, in bytes. Default the receiver's. */
  maxBodyBytes?: number;
}

/** Where a validation issue points, e.g. `message.subject`. */
const issuePath = (path: readonly PropertyKey[]): string => path.map(String).join(".") || "(body)";

/**
 * The route that serves a server's outgoing webhook: checks the token in constant time, hands the
 * message to `handleMessage`, answers `{"content": ...}` or `{"response_not_required": true}`.
 *
 * @example
 * receiver.mount(outgoingWebhookRoute({ token, handleMessage: (m) => bot.handleOutgoing(m) }));
 */
export function outgoingWebhookRoute(options: OutgoingWebhookOptions): RouteDefinition {
  const log = (options.logger ?? silentLogger()).child({ component: "outgoing-webhook" });
  const path = options.path ?? "/outgoing";
  return {
    path,
    // The token travels in the JSON body, so the check happens below, after parsing.
    options: { auth: { type: "none" }, json: true, maxBodyBytes: options.maxBodyBytes },
    async handler({ payload }) {
      const token =
        payload !== null && typeof payload === "object"
          ? (payload as Record<string, unknown>).token
          : undefined;
      if (typeof token !== "string" || !safeEqual(token, options.token)) {
        log.warn(
          { route: path, reason: typeof token === "string" ? "wrong token" : "missing token" },
          "outgoing webhook rejected: authentication failed",
        );
        throw new WebhookError(401, "authentication failed");
      }
      const parsed = outgoingWebhookPayload.safeParse(payload);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new WebhookError(400, `invalid payload: ${issuePath(issue.path)}: ${issue.message}`);
      }
      const body = parsed.data;
      const trigger = body.trigger === "private_message" ? "direct_message" : body.trigger;
      const reply = await options.handleMessage({
        message: body.message,
        data: body.data,
        trigger,
        botEmail: body.bot_email,
        botFullName: body.bot_full_name,
      });
      log.debug(
        { messageId: body.message.id, trigger, replied: Boolean(reply) },
        "outgoing webhook",
      );
      return reply ? { content: reply } : { response_not_required: true };
    },
  };
}
