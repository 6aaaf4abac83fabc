// Sandbox routes for single messages: send, fetch, edit history, and edits and moves (rules in editRules.ts).
import { endpoints, isDirectType } from "../../api/index.js";
import { route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import type { SandboxUser, StoredMessage } from "../model.js";
import { badRequest, missing, SandboxError } from "../errors.js";
import { editMessage, historySnapshots } from "../edits.js";
import { checkUpdate } from "../editRules.js";
import { movedWholeTopic, postMoveNotices } from "../moveNotices.js";
import { moveTopicPolicies } from "../topicPolicyMoves.js";
import { checkedWidgetContent } from "../widgets.js";
import {
  checkedTopic,
  normalizeTopic,
  resolveRecipients,
  sendDirect,
  sendToChannel,
} from "../send.js";

export { normalizeTopic };

/** The message if it exists and `user` may see it; `BAD_REQUEST` "Invalid message(s)" otherwise. */
export function visibleMessage(realm: Realm, user: SandboxUser, id: number): StoredMessage {
  const message = realm.message(id);
  if (!message || !realm.canSee(user, message)) throw badRequest("Invalid message(s)");
  return message;
}

/** JSON text of a string, if `text` is one (`"general"` with the quotes); else undefined. */
function jsonString(text: string): string | undefined {
  if (!text.startsWith('"')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The server's `extract_stream_indicator`: a channel ID, a name, or a JSON-encoded name. */
function streamIndicator(to: string | number): string | number {
  return typeof to === "number" ? to : (jsonString(to) ?? to);
}

/**
 * The server's `extract_private_recipients`: user IDs, or emails given as a list, a JSON-encoded
 * string or comma-separated (trimmed, blanks and duplicates dropped).
 */
function privateRecipients(
  to: string | number | readonly (string | number)[],
): (string | number)[] {
  if (typeof to === "number") return [to];
  const list = typeof to === "string" ? (jsonString(to) ?? to).split(",") : [...to];
  if (typeof list[0] === "number") return [...new Set(list)];
  return [...new Set(list.map((e) => String(e).trim()).filter((e) => e !== ""))];
}

export const messageRoutes: Route[] = [
  route(endpoints.messages.send, ({ realm, user, params, clientName }) => {
    if (params.queue_id !== undefined && params.local_id === undefined) throw missing("local_id");
    const localEcho =
      params.queue_id !== undefined
        ? { queueId: params.queue_id, localId: params.local_id! }
        : undefined;

    const widget =
      params.widget_content === undefined ? undefined : checkedWidgetContent(params.widget_content);

    if (isDirectType(params.type)) {
      const recipients = resolveRecipients(realm, user, privateRecipients(params.to));
      const message = sendDirect(realm, {
        sender: user,
        recipients,
        content: params.content,
        client: clientName,
        readBySender: params.read_by_sender,
        localEcho,
        widget,
      });
      return { id: message.id };
    }

    if (Array.isArray(params.to)) {
      if (params.to.length !== 1)
        throw badRequest("Invalid channel: expected one channel name or ID");
    }
    const target = streamIndicator(Array.isArray(params.to) ? params.to[0]! : params.to);
    const channel =
      typeof target === "number" ? realm.channels.get(target) : realm.channelByName(target);
    if (!channel) {
      // As the server: a name is StreamDoesNotExistError (`stream`), an ID StreamWithIDDoesNotExistError (`stream_id`).
      throw typeof target === "number"
        ? new SandboxError("STREAM_DOES_NOT_EXIST", `Channel with ID '${target}' does not exist`, {
            extra: { stream_id: target },
          })
        : new SandboxError("STREAM_DOES_NOT_EXIST", `Channel '${target}' does not exist`, {
            extra: { stream: target },
          });
    }
    if (params.topic === undefined) throw missing("topic");
    const topic = checkedTopic(realm, params.topic);
    const { message, automaticPolicy } = sendToChannel(realm, {
      sender: user,
      channel,
      topic,
      content: params.content,
      client: clientName,
      readBySender: params.read_by_sender,
      localEcho,
      widget,
    });
    return automaticPolicy === undefined
      ? { id: message.id }
      : { id: message.id, automatic_new_visibility_policy: automaticPolicy };
  }),

  route(endpoints.messages.get, ({ realm, user, params }) => {
    const message = visibleMessage(realm, user, params.message_id);
    const applyMarkdown = params.apply_markdown ?? true;
    const view = realm.messageView(message, user, {
      applyMarkdown,
      allowEmptyTopicName: params.allow_empty_topic_name ?? false,
    });
    return { raw_content: message.content, message: view };
  }),

  route(endpoints.messages.history, ({ realm, user, params }) => {
    if (!realm.settings.allowEditHistory)
      throw badRequest("Message edit history is disabled in this organization");
    const message = visibleMessage(realm, user, params.message_id);
    return {
      message_history: historySnapshots(realm, message, params.allow_empty_topic_name ?? false),
    };
  }),

  route(endpoints.messages.update, ({ realm, user, params }) => {
    const message = visibleMessage(realm, user, params.message_id);
    const propagateMode = params.propagate_mode ?? "change_one";
    const edit = checkUpdate(realm, user, message, {
      content: params.content,
      topic: params.topic ?? params.subject,
      streamId: params.stream_id,
      propagateMode,
    });
    const from =
      message.kind === "stream"
        ? { channel: realm.channels.get(message.streamId!)!, topic: message.topic }
        : undefined;
    const topicChanged = edit.topic !== undefined;
    const channelChanged =
      edit.channel !== undefined && edit.channel.streamId !== from?.channel.streamId;
    const to = from && {
      streamId: edit.channel?.streamId ?? from.channel.streamId,
      topic: edit.topic ?? from.topic,
    };
    const targetHadMessages =
      to !== undefined &&
      realm.index
        .topic(to.streamId, to.topic)
        .some(
          (m) => m.streamId === to.streamId && m.topic.toLowerCase() === to.topic.toLowerCase(),
        );
    const moved = editMessage(realm, { editor: user, message, ...edit });
    if (from && to && moved.length > 0 && (topicChanged || channelChanged)) {
      if (movedWholeTopic(realm, user, from, propagateMode)) {
        const lost = new Set(
          [...realm.users.values()].filter((u) => !realm.canSee(u, message)).map((u) => u.userId),
        );
        moveTopicPolicies(
          realm,
          { streamId: from.channel.streamId, topic: from.topic },
          to,
          targetHadMessages,
          lost,
        );
      }
    }
    if (from && moved.length > 0 && (topicChanged || channelChanged))
      postMoveNotices(realm, {
        editor: user,
        target: message,
        moved,
        from,
        topicChanged,
        channelChanged,
        resolved: edit.resolved,
        unresolved: edit.unresolved,
        contentChanged: edit.content !== undefined,
        propagateMode,
        notifyOld: params.send_notification_to_old_thread ?? false,
        notifyNew: params.send_notification_to_new_thread ?? true,
      });
    return { detached_uploads: [] };
  }),
];
