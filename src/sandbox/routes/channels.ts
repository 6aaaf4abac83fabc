// Sandbox routes for channels and subscriptions: GET /streams, GET and POST /users/me/subscriptions.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import type { Channel, SandboxUser } from "../model.js";
import { badRequest } from "../errors.js";
import { renderMarkdown } from "../markdown.js";
import { findUserByEmail } from "../emailVisibility.js";
import { subscriptionPropertiesView } from "../subscriptionProperties.js";

function channelView(realm: Realm, channel: Channel): Record<string, unknown> {
  const first = realm.index.channel(channel.streamId).find((m) => m.streamId === channel.streamId);
  return {
    stream_id: channel.streamId,
    name: channel.name,
    description: channel.description,
    rendered_description: channel.description ? renderMarkdown(channel.description) : "",
    invite_only: channel.inviteOnly,
    is_web_public: false,
    history_public_to_subscribers: channel.historyPublicToSubscribers,
    date_created: channel.dateCreated ?? 0,
    is_archived: false,
    first_message_id: first?.id ?? null,
    stream_post_policy: 1,
    message_retention_days: null,
    is_announcement_only: false,
  };
}

function subscriptionView(
  realm: Realm,
  user: SandboxUser,
  channel: Channel,
  includeSubscribers: boolean,
): Record<string, unknown> {
  return {
    ...channelView(realm, channel),
    ...subscriptionPropertiesView(realm.subscriptionProperties.of(user.userId, channel.streamId)),
    ...(includeSubscribers ? { subscribers: [...channel.subscribers].sort((a, b) => a - b) } : {}),
  };
}

/** Principals given as IDs or emails, resolved to users (the requester when absent). */
function principals(realm: Realm, user: SandboxUser, given?: (string | number)[]): SandboxUser[] {
  if (!given || given.length === 0) return [user];
  return given.map((p) => {
    const found = typeof p === "number" ? realm.users.get(p) : findUserByEmail(realm, user, p);
    if (!found || !found.isActive) throw badRequest(`No such user: ${String(p)}`);
    return found;
  });
}

/** The server's check_stream_name: not blank, at most 60 characters, printable (position 1-based). */
function checkChannelName(name: string): void {
  if (name === "") throw badRequest("Channel name can't be empty.");
  if ([...name].length > 60) throw badRequest("Channel name too long (limit: 60 characters).");
  const at = [...name].findIndex((c) => /[\p{Cc}\p{Cs}]/u.test(c));
  if (at >= 0) throw badRequest(`Invalid character in channel name, at position ${at + 1}.`);
}

export const channelRoutes: Route[] = [
  route(endpoints.channels.list, ({ realm, user, params }) => {
    const includePublic = params.include_public ?? true;
    const includeSubscribed = params.include_subscribed ?? true;
    const all = params.include_all ?? params.include_all_active ?? false;
    const streams = [...realm.channels.values()].filter((c) => {
      if (all && user.role <= 200) return true;
      if (includeSubscribed && c.subscribers.has(user.userId)) return true;
      return includePublic && !c.inviteOnly && user.role !== 600;
    });
    return { streams: streams.map((c) => channelView(realm, c)) };
  }),

  route(endpoints.subscriptions.list, ({ realm, user, params }) => {
    const subscriptions = [...realm.channels.values()]
      .filter((c) => c.subscribers.has(user.userId))
      .map((c) => subscriptionView(realm, user, c, params.include_subscribers ?? false));
    return { subscriptions };
  }),

  route(endpoints.subscriptions.add, ({ realm, user, params }) => {
    const targets = principals(realm, user, params.principals);
    if (targets.some((t) => t.userId !== user.userId) && user.role === 600)
      throw badRequest("Insufficient permission");
    const subscribed: Record<string, string[]> = {};
    const already: Record<string, string[]> = {};
    const unauthorized: string[] = [];
    const channels: Channel[] = [];
    for (const { name, description } of params.subscriptions) {
      checkChannelName(name.trim());
      let channel = realm.channelByName(name.trim());
      if (!channel) {
        if (user.role === 600) throw badRequest("Insufficient permission");
        channel = realm.addChannel(
          name.trim(),
          description ?? "",
          params.invite_only ?? false,
          params.history_public_to_subscribers ?? !(params.invite_only ?? false),
        );
      } else if (channel.inviteOnly && !channel.subscribers.has(user.userId) && user.role > 200) {
        unauthorized.push(channel.name);
        continue;
      }
      channels.push(channel);
    }
    if (unauthorized.length > 0 && (params.authorization_errors_fatal ?? true))
      throw badRequest(`Unable to access channel (${unauthorized[0]}).`);
    for (const target of targets) {
      const key = String(target.userId);
      for (const channel of channels) {
        const added = realm.subscribe(channel, target.userId);
        const bucket = added ? subscribed : already;
        (bucket[key] ??= []).push(channel.name);
        if (!added) continue;
        realm.pushEvent([target.userId], {
          type: "subscription",
          op: "add",
          subscriptions: [subscriptionView(realm, target, channel, false)],
        });
        const peers = [...channel.subscribers].filter((id) => id !== target.userId);
        realm.pushEvent(peers, {
          type: "subscription",
          op: "peer_add",
          stream_ids: [channel.streamId],
          user_ids: [target.userId],
        });
      }
    }
    return {
      subscribed,
      already_subscribed: already,
      ...(unauthorized.length > 0 ? { unauthorized } : {}),
    };
  }),
];
