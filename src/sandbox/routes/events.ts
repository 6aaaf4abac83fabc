// Sandbox routes for event queues: POST /register, GET /events, DELETE /events.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import type { SandboxUser } from "../model.js";
import { ownUserView, realmMembers, userView, usersAsSeenBy } from "./users.js";
import { compileNarrow } from "../narrow.js";
import { badRequest } from "../errors.js";
import { SYSTEM_GROUPS, systemGroupId } from "../userAccess.js";
import { editRulesState } from "../editRules.js";

/** The parts of the initial state a bot needs, each present only when its type was fetched. */
function initialState(
  realm: Realm,
  user: SandboxUser,
  fetch: (type: string) => boolean,
): Record<string, unknown> {
  const s = realm.settings;
  const state: Record<string, unknown> = {};
  if (fetch("realm")) {
    Object.assign(state, {
      event_queue_longpoll_timeout_seconds: realm.queues.options.heartbeatSeconds + 30,
      max_message_length: s.maxMessageLength,
      max_topic_length: s.maxTopicLength,
      max_stream_name_length: 60,
      max_stream_description_length: 1024,
      max_file_upload_size_mib: s.maxFileUploadSizeMib,
      realm_empty_topic_display_name: s.emptyTopicDisplayName,
      realm_url: `http://${s.host}`,
      realm_name: s.name,
      realm_can_access_all_users_group: systemGroupId(s.canAccessAllUsersGroup),
      ...editRulesState(s),
    });
  }
  if (fetch("realm_user_groups")) {
    state.realm_user_groups = SYSTEM_GROUPS.map((g) => ({
      ...g,
      members: [],
      direct_subgroup_ids: [],
      is_system_group: true,
    }));
  }
  if (fetch("realm_user")) {
    const own = ownUserView(realm, user);
    const members = usersAsSeenBy(realm, user, realmMembers(realm));
    Object.assign(state, {
      user_id: own.user_id,
      email: own.email,
      delivery_email: own.delivery_email,
      full_name: own.full_name,
      is_admin: own.is_admin,
      is_owner: own.is_owner,
      is_guest: own.is_guest,
      // A user a guest may not see is an active "Unknown user", as the server shows them.
      realm_users: members.filter((u) => u.is_active),
      realm_non_active_users: members.filter((u) => !u.is_active),
      // System bots are not in the organization's lists; clients combine them where needed.
      cross_realm_bots: [...realm.users.values()]
        .filter((u) => u.isSystemBot)
        .map((u) => ({ ...userView(realm, user, u), is_system_bot: true })),
    });
  }
  if (fetch("message")) state.max_message_id = realm.messages.at(-1)?.id ?? -1;
  if (fetch("subscription")) {
    state.subscriptions = [...realm.channels.values()]
      .filter((c) => c.subscribers.has(user.userId))
      .map((c) => ({ stream_id: c.streamId, name: c.name, invite_only: c.inviteOnly }));
  }
  return state;
}

const EVENT_NARROW_OPERATORS = new Set(["stream", "channel", "topic", "sender", "is"]);

export const eventRoutes: Route[] = [
  route(endpoints.events.register, ({ realm, user, params }) => {
    // As the server's check_supported_events_narrow_filter: queues filter on these operators only.
    for (const [operator] of params.narrow ?? [])
      if (!EVENT_NARROW_OPERATORS.has(operator))
        throw badRequest(`Operator ${operator} not supported.`);
    // A narrow that does not resolve (unknown channel or user) is refused up front.
    compileNarrow(realm, user, params.narrow);
    const queue = realm.queues.create(user.userId, {
      eventTypes: params.event_types,
      allPublicStreams: params.all_public_streams ?? false,
      applyMarkdown: params.apply_markdown ?? false,
      clientGravatar: params.client_gravatar ?? true,
      allowEmptyTopicName: params.client_capabilities?.empty_topic_name ?? false,
      bulkMessageDeletion: params.client_capabilities?.bulk_message_deletion ?? false,
      narrow: params.narrow ?? [],
    });
    const fetchTypes = params.fetch_event_types ?? params.event_types;
    const fetch = (type: string): boolean => !fetchTypes || fetchTypes.includes(type);
    return {
      queue_id: queue.id,
      last_event_id: -1,
      // The contract names it service_feature_level; real servers zulip_feature_level: both are sent.
      service_feature_level: realm.settings.featureLevel,
      zulip_feature_level: realm.settings.featureLevel,
      zulip_version: realm.settings.zulipVersion,
      zulip_merge_base: realm.settings.zulipVersion,
      ...initialState(realm, user, fetch),
    };
  }),

  route(endpoints.events.get, async ({ realm, user, params, signal }) => {
    const queue = realm.queues.get(params.queue_id, user.userId);
    queue.lastAccess = realm.clock.now();
    if (params.last_event_id !== undefined) queue.acknowledge(params.last_event_id);
    if (!params.dont_block) await queue.wait(realm.queues.options.heartbeatSeconds * 1000, signal);
    // The queue may have been deleted or expired while we waited.
    realm.queues.get(params.queue_id, user.userId);
    queue.lastAccess = realm.clock.now();
    return { events: [...queue.events], queue_id: queue.id };
  }),

  route(endpoints.events.deleteQueue, ({ realm, user, params }) => {
    realm.queues.delete(params.queue_id, user.userId);
    return {};
  }),
];
