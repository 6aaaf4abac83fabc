// Sandbox route for typing notifications: `typing` events to the DM's recipients or the channel's subscribers.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { badRequest } from "../errors.js";
import { apiEmail } from "../emailVisibility.js";
import type { Realm, SandboxUser } from "../realm.js";

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

export const typingRoutes: Route[] = [
  route(endpoints.typing.set, ({ realm, user, params }) => {
    const type = params.type ?? "direct";
    if (type === "direct") {
      if (!params.to || params.to.length === 0) throw badRequest("Missing 'to' argument");
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
    const channel = realm.channels.get(params.stream_id);
    if (!channel || (channel.inviteOnly && !channel.subscribers.has(user.userId)))
      throw badRequest("Invalid channel ID");
    const audience = listeners(realm, channel.subscribers);
    audience.delete(user.userId);
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
