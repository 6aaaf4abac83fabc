// Subscribing the bot to the channels its config names (a new bot is subscribed to none).
import type { ApiClient } from "../client/client.js";
import type { Logger } from "../log/logger.js";

export interface SubscribeResult {
  subscribed: string[];
  alreadySubscribed: string[];
  unauthorized: string[];
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
  };
  if (channels.length === 0) return result;
  try {
    const res = await client.subscriptions.add({
      subscriptions: channels.map((name) => ({ name })),
      authorization_errors_fatal: false,
    });
    result.subscribed = Object.values(res.subscribed).flat();
    result.alreadySubscribed = Object.values(res.already_subscribed).flat();
    result.unauthorized = res.unauthorized ?? [];
  } catch (error) {
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
