// Config-declared webhooks: the `webhooks:` and receiver settings schemas, and entries turned into routes.
import { z } from "zod";
import type { RouteAuth } from "./auth.js";
import type { RouteDefinition } from "./receiver.js";
import { compileTemplate, TemplateError, type TemplateOptions } from "./template.js";
import { graphemeBoundary } from "../markdown/safe-cut.js";

/** A channel message to post: `to` is a channel name or ID. */
export interface ChannelPost {
  to: string | number;
  topic: string;
  content: string;
}

/** Posts a channel message (the lead wires it to the client's `messages.send`). */
export type SendFn = (post: ChannelPost) => Promise<unknown>;

/** `auth:` of a webhook entry; `type: none` must be written out. */
export const routeAuthConfig = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("none").describe("`none`: no check (only behind something that checks)."),
    }),
    z.strictObject({
      type: z
        .literal("token")
        .describe("`token`: a shared token in a header or the query (constant-time compare)."),
      token: z
        .string()
        .min(8, "a shared token needs at least 8 characters")
        .describe("The shared token; prefer `${VAR}`."),
      header: z
        .string()
        .min(1)
        .optional()
        .describe("`token`: the header carrying it (default: `X-Webhook-Token` or `?token=`)."),
      query: z.string().min(1).optional().describe("`token`: the query parameter carrying it."),
    }),
    z.strictObject({
      type: z
        .literal("github")
        .describe("`github`: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`."),
      secret: z
        .string()
        .min(8, "a secret needs at least 8 characters")
        .describe("The HMAC secret; prefer `${VAR}`."),
    }),
    z.strictObject({
      type: z.literal("hmac").describe("`hmac`: an HMAC-SHA256 of the raw body in `header`."),
      secret: z.string().min(8, "a secret needs at least 8 characters"),
      header: z.string().min(1).describe("`hmac`: the header carrying the signature."),
      encoding: z.enum(["hex", "base64"]).default("hex").describe("How the signature is written."),
      prefix: z.string().default("").describe("Text before the signature, e.g. `sha256=`."),
    }),
  ])
  .describe("How requests are authenticated; required.");

/** Checks that a string parses as a template; zod reports the key on failure. */
const templateString = (options: TemplateOptions = {}) =>
  z.string().superRefine((value, ctx) => {
    try {
      compileTemplate(value, "template", options);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message.replace(/^template: /, "") });
    }
  });

/** One entry of `webhooks:`. */
export const webhookEntryConfig = z.strictObject({
  path: z
    .string()
    .regex(/^\/[\w\-./~%]*$/, "a path starts with / and has no query, e.g. /hooks/ci")
    .refine((p) => p !== "/healthz" && p !== "/metrics", "/healthz and /metrics are reserved")
    .describe("URL path on the receiver, e.g. `/hooks/ci`."),
  auth: routeAuthConfig,
  channel: z
    .union([z.string().min(1), z.number().int()])
    .describe("Channel name or ID to post in."),
  topic: templateString()
    .pipe(z.string().min(1))
    .describe("Topic; a template too, e.g. `{{ payload.repository }}`."),
  template: templateString({ markdown: true })
    .pipe(z.string().min(1))
    .describe("Message content, e.g. `Build **{{ payload.status }}** on {{ payload.branch }}`."),
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Largest body accepted, in bytes; default `http.maxBodyBytes`."),
});
export type WebhookEntry = z.output<typeof webhookEntryConfig>;

/** The `webhooks:` section: a list of entries with distinct paths. */
export const webhooksConfig = z
  .array(webhookEntryConfig)
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, i) => {
      if (seen.has(entry.path))
        ctx.addIssue({
          code: "custom",
          path: [i, "path"],
          message: `${entry.path} is declared twice`,
        });
      seen.add(entry.path);
    });
  })
  .describe(
    "Incoming webhook routes that turn a JSON payload into a message (see docs/notifiers.md).",
  );

/** Receiver settings (the `http:` section). Loopback by default. */
export const receiverConfig = z
  .strictObject({
    host: z
      .string()
      .min(1)
      .default("127.0.0.1")
      .describe("Interface to listen on; `0.0.0.0` for every one."),
    port: z.number().int().min(0).max(65_535).default(8080).describe("Port; 0 picks a free one."),
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024)
      .describe("Default body cap of every route, in bytes."),
    metrics: z.boolean().default(true).describe("Serve `/metrics` (Prometheus text)."),
  })
  .describe(
    "The webhook receiver, which also serves `/healthz` and `/metrics`. It runs when this section is set or any route is declared.",
  );
export type ReceiverConfig = z.output<typeof receiverConfig>;

/** The server's length limits, in characters (code points), from `/register`. */
export interface MessageLimits {
  maxTopicLength: number;
  maxMessageLength: number;
}

/** The limits every server has had by default (`max_topic_length`, `max_message_length`). */
export const DEFAULT_LIMITS: MessageLimits = { maxTopicLength: 60, maxMessageLength: 10_000 };

/** Cuts `text` to `max` code points (between grapheme clusters), ending with `marker` when cut. */
export function truncate(text: string, max: number, marker = "…"): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const head = chars.slice(0, Math.max(0, max - [...marker].length)).join("");
  // Cut between grapheme clusters: no half emoji or letter without its accent before the marker.
  return text.slice(0, graphemeBoundary(text, head.length)) + marker;
}

/** The marker ending content cut to the server's limit. */
const CONTENT_CUT = "\n\n… (cut: the message was longer than the server allows)";

/**
 * A topic from a payload as the server takes it: line breaks and other control characters
 * (which it refuses) become spaces, runs of spaces one; an empty result is `fallback` (the
 * server refuses an empty topic); cut to `max`.
 */
export function postableTopic(text: string, max: number, fallback: string): string {
  const clean = text.replace(/[\p{Cc}\p{Cs}\s]+/gu, " ").trim();
  return truncate(clean === "" ? fallback : clean, max);
}

/** Content from a payload as the server takes it: no null bytes (refused), never empty, cut to `max`. */
export function postableContent(text: string, max: number): string {
  const clean = text.replace(/\0/g, "");
  return truncate(clean.trim() === "" ? "(empty)" : clean, max, CONTENT_CUT);
}

/**
 * Turns a config entry into a route: authenticate, fill the templates from `payload`, post.
 * A missing field answers 422 naming the route and the field, and nothing is posted. A topic or
 * content longer than the server allows is cut, with a marker, rather than refused; a topic with
 * line breaks or control characters, or empty, and content with null bytes or empty, are mended
 * (`postableTopic`, `postableContent`) rather than refused.
 *
 * @example
 * receiver.mount(configRoute(config.webhooks[0], (post) => client.messages.send({ type: "channel", ...post })));
 */
export function configRoute(
  entry: WebhookEntry,
  send: SendFn,
  limits: () => MessageLimits = () => DEFAULT_LIMITS,
): RouteDefinition {
  const where = `webhook route ${entry.path}`;
  const topic = compileTemplate(entry.topic, `${where} (topic)`);
  const content = compileTemplate(entry.template, where, { markdown: true });
  return {
    path: entry.path,
    options: { auth: entry.auth as RouteAuth, json: true, maxBodyBytes: entry.maxBodyBytes },
    async handler({ payload }) {
      const vars = { payload };
      const { maxTopicLength, maxMessageLength } = limits();
      const post = {
        to: entry.channel,
        topic: postableTopic(topic.render(vars), maxTopicLength, entry.path),
        content: postableContent(content.render(vars), maxMessageLength),
      };
      await send(post);
      return { ok: true };
    },
  };
}
