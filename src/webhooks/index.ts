// topicbot/webhooks: the HTTP receiver on its own (routes, authentication, templates, config routes, outgoing-webhook mode); what plugins register comes from `topicbot`.
export { createReceiver, WebhookReceiver } from "./receiver.js";
export type { RouteDefinition, ReceiverOptions, HealthReport, PendingLoad } from "./receiver.js";
export { safeEqual, headerValue, sign, precheck, authenticate, authSecrets } from "./auth.js";
export type { AuthInput, AuthResult } from "./auth.js";
export { TemplateError, compileTemplate, renderTemplate } from "./template.js";
export type { Template, TemplateOptions } from "./template.js";
export {
  routeAuthConfig,
  webhookEntryConfig,
  webhooksConfig,
  receiverConfig,
  DEFAULT_LIMITS,
  truncate,
  postableTopic,
  postableContent,
  configRoute,
} from "./config.js";
export type { ChannelPost, SendFn, WebhookEntry, ReceiverConfig, MessageLimits } from "./config.js";
export { outgoingWebhookPayload, outgoingWebhookConfig, outgoingWebhookRoute } from "./outgoing.js";
export type { OutgoingWebhookConfig, OutgoingWebhookOptions } from "./outgoing.js";
