// The secrets a loaded configuration holds, in every form they can take, for the logger to scrub.
import { serverSecrets } from "../log/logger.js";
import { authSecrets, type RouteAuth } from "../webhooks/auth.js";
import type { BotConfig } from "./schema.js";

/** Keys of plugin settings whose string values are secrets. */
const SECRET_KEY = /secret|token|password|api_?key/i;

/** Strings under secret-looking keys anywhere in `value` (plugin settings have no fixed shape). */
function secretValues(value: unknown, underSecret = false): string[] {
  if (typeof value === "string") return underSecret ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => secretValues(item, underSecret));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([key, child]) =>
      secretValues(child, underSecret || SECRET_KEY.test(key)),
    );
  return [];
}

/**
 * Every secret of a configuration: the API key (and its Basic-auth form), webhook tokens and
 * secrets, the outgoing-webhook token, and plugin settings under keys such as `secret` or `token`.
 *
 * @example
 * const log = createLogger({ ...config.logging, secrets: configSecrets(config) });
 */
export function configSecrets(config: BotConfig): string[] {
  return [
    ...serverSecrets(config.server),
    ...config.webhooks.flatMap((route) => authSecrets(route.auth as RouteAuth)),
    ...(config.outgoingWebhook ? [config.outgoingWebhook.token] : []),
    ...config.plugins.flatMap((entry) =>
      typeof entry === "string" ? [] : secretValues(Object.values(entry)),
    ),
  ];
}
