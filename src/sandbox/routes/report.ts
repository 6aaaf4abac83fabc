// Sandbox route for reporting a message: a notice posted to the moderation request channel.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { badRequest } from "../errors.js";
import { sendToChannel } from "../send.js";
import { visibleMessage } from "./messages.js";

const LABELS = {
  spam: "spam",
  harassment: "harassment",
  inappropriate: "inappropriate content",
  norms: "violating community norms",
  other: "other reason",
} as const;

export const reportRoutes: Route[] = [
  route(endpoints.messages.report, ({ realm, user, params }) => {
    const message = visibleMessage(realm, user, params.message_id);
    const description = params.description?.trim() ?? "";
    if (params.report_type === "other" && description === "")
      throw badRequest("An explanation is required.");
    if ([...description].length > 1000)
      throw badRequest("Description must be at most 1000 characters");
    const name = realm.settings.moderationRequestChannel;
    const channel = name === null ? undefined : realm.channelByName(name);
    if (!channel)
      throw badRequest("Moderation request channel must be specified to enable message reporting.");
    const sender = realm.users.get(message.senderId)!;
    const where =
      message.kind === "stream"
        ? `#**${realm.channels.get(message.streamId!)?.name}>${message.topic}**`
        : "a direct message";
    const bot = realm.systemBot();
    realm.subscribe(channel, bot.userId);
    const quoted = message.content
      .split("\n")
      .map((line) => `> ${line}`)
      .join("\n");
    sendToChannel(realm, {
      sender: bot,
      channel,
      topic: `${sender.fullName}'s moderation requests`.slice(0, realm.settings.maxTopicLength),
      content:
        `@_**${user.fullName}|${user.userId}** reported a message by @_**${sender.fullName}|${sender.userId}** ` +
        `in ${where} for ${LABELS[params.report_type]}.` +
        (description ? `\n\n**Explanation:** ${description}` : "") +
        `\n\n${quoted}`,
    });
    return {};
  }),
];
