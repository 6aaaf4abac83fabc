// Sandbox route for scheduled messages: validated now, sent by the scheduler when the clock gets there.
import { endpoints, isDirectType } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { badRequest, missing, SandboxError } from "../errors.js";
import {
  checkedTopic,
  normalizedContent,
  defaultReadBySender,
  resolveRecipients,
} from "../send.js";

export const scheduledRoutes: Route[] = [
  route(endpoints.scheduledMessages.create, ({ realm, user, params, clientName }) => {
    const content = normalizedContent(realm, params.content);
    if (params.scheduled_delivery_timestamp <= realm.nowSeconds())
      throw badRequest("Scheduled delivery time must be in the future.");
    const base = {
      senderId: user.userId,
      content,
      deliverAt: params.scheduled_delivery_timestamp,
      client: clientName,
    };
    // Absent read_by_sender: the client heuristic, except that a message to oneself alone (a
    // reminder) stays unread, as the server's "client name and recipient" rule has it.
    const readBySender = (toSelfOnly: boolean): boolean =>
      params.read_by_sender ?? (defaultReadBySender(clientName) && !toSelfOnly);
    if (isDirectType(params.type)) {
      const ids = Array.isArray(params.to) ? params.to : [params.to];
      const recipients = resolveRecipients(realm, user, ids);
      const scheduled = realm.scheduler.add({
        ...base,
        readBySender: readBySender(recipients.every((r) => r.userId === user.userId)),
        kind: "private",
        topic: "",
        recipients: recipients.map((r) => r.userId),
      });
      return { scheduled_message_id: scheduled.id };
    }
    if (Array.isArray(params.to) && params.to.length !== 1)
      throw badRequest("Invalid channel: expected one channel ID");
    const streamId = Array.isArray(params.to) ? params.to[0]! : params.to;
    const channel = realm.channels.get(streamId);
    if (!channel || (channel.inviteOnly && !channel.subscribers.has(user.userId))) {
      throw new SandboxError(
        "STREAM_DOES_NOT_EXIST",
        `Channel with ID '${streamId}' does not exist`,
        {
          extra: { stream_id: streamId },
        },
      );
    }
    if (params.topic === undefined) throw missing("topic");
    const topic = checkedTopic(realm, params.topic);
    const scheduled = realm.scheduler.add({
      ...base,
      readBySender: readBySender(false),
      kind: "stream",
      streamId,
      topic,
      recipients: [],
    });
    return { scheduled_message_id: scheduled.id };
  }),
];
