// Config-declared webhooks: the `webhooks:` and receiver settings schemas, and entries turned into routes.
import { z } from "zod";
import type { RouteAuth } from "./auth.js";
import type { RouteDefinition } from "./receiver.js";
import { compileTemplate, TemplateError } from "./template.js";

/** A channel message to post: `to` is a channel name or ID. */
export interface ChannelPost {
  to: string | number;
  topic: string;
  content: string;
}

/** Posts a channel message (the lead wires it to the client's `messages.send`). */
export type SendFn = (post: ChannelPost) => Promise<unknown>;

/** `auth:` of a webhook entry; `type: none` must be written out. */
export const routeAuthConfig = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("none") }),
  z.strictObject({
    type: z.literal("token"),
    token: z.string().min(8, "a shared token needs at least 8 characters"),
    header: z.string().min(1).optional(),
    query: z.string().min(1).optional(),
  }),
  z.strictObject({
    type: z.literal("github"),
    secret: z.string().min(8, "a secret needs at least 8 characters"),
  }),
  z.strictObject({
    type: z.literal("hmac"),
    secret: z.string().min(8, "a secret needs at least 8 characters"),
    header: z.string().min(1),
    encoding: z.enum(["hex", "base64"]).default("hex"),
    prefix: z.string().default(""),
  }),
]);

/** Checks that a string parses as a template; zod reports the key on failure. */
const templateString = z.string().superRefine((value, ctx) => {
  try {
    compileTemplate(value, "template");
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    ctx.addIssue({ code: "custom", message: error.message.replace(/^template: /, "") });
  }
});

/** One entry of `webhooks:`. */
export const webhookEntryConfig = z.strictObject({
  /** URL path on the receiver, e.g. `/hooks/ci`. */
  path: z
    .string()
    .regex(/^\/[\w\-./~%]*$/, "a path starts with / and has no query, e.g. /hooks/ci")
    .refine((p) => p !== "/healthz" && p !== "/metrics", "/healthz and /metrics are reserved"),
  auth: routeAuthConfig,
  /** Channel name or ID to post in. */
  channel: z.union([z.string().min(1), z.number().int()]),
  /** Topic; a template too, e.g. `{{ payload.repository }}`. */
  topic: templateString.pipe(z.string().min(1)),
  /** Message content, e.g. `Build **{{ payload.status }}** on {{ payload.branch }}`. */
  template: templateString.pipe(z.string().min(1)),
  /** Largest body accepted, in bytes. */
  maxBodyBytes: z.number().int().positive().optional(),
});
export type WebhookEntry = z.output<typeof webhookEntryConfig>;

/** The `webhooks:` section: a list of entries with distinct paths. */
export const webhooksConfig = z.array(webhookEntryConfig).superRefine((entries, ctx) => {
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
});

/** Receiver settings (the lead places them, e.g. under `http:`). Loopback by default. */
export const receiverConfig = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  port: z.number().int().min(0).max(65_535).default(8080),
  /** Default body cap of routes, in bytes. */
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** Serve `/metrics`. */
  metrics: z.boolean().default(true),
});
export type ReceiverConfig = z.output<typeof receiverConfig>;

/**
 * Turns a config entry into a route: authenticate, fill the templates from `payload`, post.
 * A missing field answers 422 naming the route and the field, and nothing is posted.
 *
 * @example
 * receiver.mount(configRoute(config.webhooks[0], (post) => client.messages.send({ type: "channel", ...post })));
 */
export function configRoute(entry: WebhookEntry, send: SendFn): RouteDefinition {
  const where = `webhook route ${entry.path}`;
  const topic = compileTemplate(entry.topic, `${where} (topic)`);
  const content = compileTemplate(entry.template, where);
  return {
    path: entry.path,
    options: { auth: entry.auth as RouteAuth, json: true, maxBodyBytes: entry.maxBodyBytes },
    async handler({ payload }) {
      const vars = { payload };
      const post = { to: entry.channel, topic: topic.render(vars), content: content.render(vars) };
      await send(post);
      return { ok: true };
    },
  };
}
