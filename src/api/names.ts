// Where the contract (spec/api.md) and the real server name one thing differently, and how the client reads both.
//
// | the contract              | the real server            | where                                  |
// | ------------------------- | -------------------------- | -------------------------------------- |
// | `service_feature_level`   | `zulip_feature_level`      | registration, GET /server_settings     |
// | `service_extra_emoji`     | `zulip_extra_emoji`        | `reaction_type` of reactions, statuses |
// | `client_extavatar`        | `client_gravatar`          | GET /users parameter                   |
// | `native_device_token`     | `apns_device_token`        | the deprecated push token endpoint     |
//
// The client and the sandbox speak the contract; where the client reads, it takes the real
// server's name too: a bot pointed at a real server must not break on it. The two request
// names are the client's to write (the contract's), so there is nothing to read for them.
import { z } from "zod";
import { optInt } from "./leaves.js";

/**
 * Reads the feature level under either name and answers the body with both filled in, so code
 * may use the contract's `service_feature_level` or the familiar `zulip_feature_level` alike.
 * A body with neither is refused (the client reports it as a `ResponseShapeError`).
 */
export function bothFeatureLevelNames<T extends Record<string, unknown>>(
  body: T,
  ctx: z.RefinementCtx,
): T & { service_feature_level: number; zulip_feature_level: number } {
  const level = body.service_feature_level ?? body.zulip_feature_level;
  if (typeof level !== "number" || !Number.isSafeInteger(level)) {
    ctx.addIssue({
      code: "custom",
      message: "service_feature_level (zulip_feature_level on real servers) must be an integer",
      path: ["service_feature_level"],
      input: level,
    });
    return z.NEVER;
  }
  return { ...body, service_feature_level: level, zulip_feature_level: level };
}

/** The feature level fields as a response schema declares them: either may come. */
export const featureLevelFields = { service_feature_level: optInt, zulip_feature_level: optInt };
