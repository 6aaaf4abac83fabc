// Subscribing the bot to the channels its config names (a new bot is subscribed to none).
// The endpoint is declared here until the client's channel API (`client.subscriptions.add`) lands.
import { z } from "zod";
import { endpoint } from "../api/endpoint.js";
import type { ApiClient } from "../client/client.js";
import { ApiError } from "../client/errors.js";
import type { Logger } from "../log/logger.js";

/** POST /users/me/subscriptions: subscribe (creating channels the bot may create). */
export const subscribeEndpoint = endpoint({
  method: "POST",
  path: "/users/me/subscriptions",
  params: z.object({
    subscriptions: z.array(z.object({ name: z.string(), description: z.string().optional() })),
    authorization_errors_fatal: z.boolean().optional(),
  }),
  response: z.looseObject({
    subscribed: z.record(z.string(), z.array(z.string())),
    already_subscribed: z.record(z.string(), z.array(z.string())),
    unauthorized: z.array(z.string()).optional(),
  }),
  // Subscribing twice changes nothing: safe to retry.
  idempotent: true,
});

export interface SubscribeResult {
  subscribed: string[];
  alreadySubscribed: string[];
  unauthorized: string[];
  /** True when the server does not offer the endpoint (the embedded sandbox, for now). */
  unsupported: boolean;
}

/**
 * Subscribes the bot to `channels`. Channels it may not join are reported, not fatal; any other
 * refusal is an error naming the channels and the server's code.
 *
 * @example
 * await subscribeToChannels(client, ["general", "standups"], log);
 */
export async function subscribeToChannels(
  client: ApiClient,
  channels: readonly string[],
  log: Logger,
): Promise<SubscribeResult> {
  const result: SubscribeResult = {
    subscribed: [],
    alreadySubscribed: [],
    unauthorized: [],
    unsupported: false,
  };
  if (channels.length === 0) return result;
  try {
    const res = await client.call(subscribeEndpoint, {
      subscriptions: channels.map((name) => ({ name })),
      authorization_errors_fatal: false,
    });
    result.subscribed = Object.values(res.subscribed).flat();
    result.alreadySubscribed = Object.values(res.already_subscribed).flat();
    result.unauthorized = res.unauthorized ?? [];
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      log.warn(
        { channels },
        "the server has no subscriptions endpoint; the bot hears only the channels it is already in",
      );
      return { ...result, unsupported: true };
    }
    throw new Error(
      `could not subscribe to the configured channels (${channels.join(", ")}): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (result.unauthorized.length > 0)
    log.warn(
      { channels: result.unauthorized },
      `not allowed to subscribe to ${result.unauthorized.join(", ")} (check the channels' permissions)`,
    );
  log.info(
    { subscribed: result.subscribed, alreadySubscribed: result.alreadySubscribed },
    "channel subscriptions checked",
  );
  return result;
}
