// topicbot/webhooks: the HTTP receiver, its authentication, templates, config routes and outgoing-webhook mode.
export * from "./auth.js";
export * from "./template.js";
export * from "./receiver.js";
export * from "./config.js";
export * from "./outgoing.js";
export * from "../markdown/escape.js";
