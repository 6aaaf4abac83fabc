// Sandbox routes for messages: POST /messages.
import { endpoints, isDirectType, NO_TOPIC } from "../../api/index.js";
import { route, type Route } from "../route.js";
import type { Realm, SandboxUser } from "../realm.js";
import { badRequest, missing, SandboxError } from "../errors.js";

/** The topic rule: `(no topic)` and the realm's empty-topic display name mean the empty string. */
export function normalizeTopic(realm: Realm, topic: string): string {
  const trimmed = topic.trim();
  return trimmed === NO_TOPIC || trimmed === realm.settings.emptyTopicDisplayName ? "" : trimmed;
}

/** DM recipients given as IDs or emails, resolved to users. */
function resolveRecipients(realm: Realm, to: unknown): SandboxUser[] {
  const list = Array.isArray(to) ? to : [to];
  return list.map((item) => {
    const user = typeof item === "number" ? realm.users.get(item) : realm.userByEmail(String(item));
    if (!user || !user.isActive) throw badRequest(`Invalid user ID ${String(item)}`);
    return user;
  });
}

export const messageRoutes: Route[] = [
  route(endpoints.messages.send, ({ realm, user, params }) => {
    const { settings } = realm;
    if ([...params.content].length > settings.maxMessageLength) {
      throw badRequest(`Message must not be longer than ${settings.maxMessageLength} characters`);
    }
    if (params.content.trim() === "") throw badRequest("Message must not be empty");
    if (params.queue_id !== undefined && params.local_id === undefined) throw missing("local_id");
    const localEcho =
      params.queue_id !== undefined
        ? { queueId: params.queue_id, localId: params.local_id! }
        : undefined;

    if (isDirectType(params.type)) {
      const recipients = resolveRecipients(realm, params.to);
      const message = realm.postMessage({
        sender: user,
        kind: "private",
        recipients: recipients.map((r) => r.userId),
        content: params.content,
        readBySender: params.read_by_sender,
        localEcho,
      });
      return { id: message.id };
    }

    if (Array.isArray(params.to))
      throw badRequest("Invalid channel: expected one channel name or ID");
    const channel =
      typeof params.to === "number"
        ? realm.channels.get(params.to)
        : realm.channelByName(params.to);
    if (!channel) {
      throw new SandboxError(
        "STREAM_DOES_NOT_EXIST",
        `Channel '${String(params.to)}' does not exist`,
        {
          extra: { stream: String(params.to) },
        },
      );
    }
    if (params.topic === undefined) throw missing("topic");
    const topic = normalizeTopic(realm, params.topic);
    if (topic === "") throw badRequest("Topic can't be empty");
    if ([...topic].length > settings.maxTopicLength) {
      throw badRequest(`Topic must not be longer than ${settings.maxTopicLength} characters`);
    }
    const message = realm.postMessage({
      sender: user,
      kind: "stream",
      channel,
      topic,
      content: params.content,
      readBySender: params.read_by_sender,
      localEcho,
    });
    return { id: message.id };
  }),
];
