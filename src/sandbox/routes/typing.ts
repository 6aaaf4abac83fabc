// Sandbox route for typing notifications: `typing` events to the DM's recipients or the channel's subscribers, typist included.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { badRequest } from "../errors.js";
import { apiEmail } from "../emailVisibility.js";
import type { Realm } from "../realm.js";
import type { SandboxUser } from "../model.js";

/** Users who get typing events: those among `ids` whose setting allows it. */
function listeners(realm: Realm, ids: Iterable<number>): Set<number> {
  const out = new Set<number>();
  for (const id of ids) {
    const user = realm.users.get(id);
    if (user?.isActive !== false && user?.settings.receives_typing_notifications !== false)
      out.add(id);
  }
  return out;
}

const who = (realm: Realm, user: SandboxUser) => ({
  user_id: user.userId,
  email: apiEmail(realm, user),
});

/** The server's MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS. */
const MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

export const typingRoutes: Route[] = [
  route(endpoints.typing.set, ({ realm, user, params }) => {
    const type = params.type ?? "direct";
    if (type === "direct" || type === "private") {
      if (!params.to) throw badRequest("Missing 'to' argument");
      if (params.to.length === 0) throw badRequest("Empty 'to' list");
      if (user.settings.send_private_typing_notifications === false)
        throw badRequest("User has disabled typing notifications for direct messages");
      const recipients = [...new Set([user.userId, ...params.to])].map((id) => {
        const r = realm.users.get(id);
        if (!r) throw badRequest(`Invalid user ID ${id}`);
        return r;
      });
      realm.pushEvent(
        listeners(
          realm,
          recipients.map((r) => r.userId),
        ),
        {
          type: "typing",
          op: params.op,
          message_type: "direct",
          sender: who(realm, user),
          recipients: recipients.map((r) => who(realm, r)),
        },
      );
      return {};
    }
    if (params.stream_id === undefined) throw badRequest("Missing 'stream_id' argument");
    if (params.topic === undefined) throw badRequest("Missing topic");
    if (user.settings.send_stream_typing_notifications === false)
      throw badRequest("User has disabled typing notifications for channel messages");
    const channel = realm.channels.get(params.stream_id);
    if (!channel || (channel.inviteOnly && !channel.subscribers.has(user.userId)))
      throw badRequest("Invalid channel ID");
    // As the server's do_send_stream_typing_notification: every subscriber who wants typing
    // events, the typist included; none at all in channels of more than 100 subscribers.
    if (channel.subscribers.size > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS) return {};
    const audience = listeners(realm, channel.subscribers);
    realm.pushEvent(audience, {
      type: "typing",
      op: params.op,
      message_type: "stream",
      sender: who(realm, user),
      stream_id: channel.streamId,
      topic: params.topic,
    });
    return {};
  }),
];
