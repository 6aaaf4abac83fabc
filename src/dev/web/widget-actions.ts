// What a click on a widget in the console does, as the web client does it: a zform choice sends its reply, a poll vote a submessage.
import type { Message } from "../../api/messages.js";
import type { DevWorld } from "../world.js";
import { RequestError } from "./request-error.js";
import { readWidget, voteFor } from "./widgets.js";

/** The message `body.messageId` as the speaker sees it now (raw content, submessages), or a 404 naming it. */
async function messageOf(world: DevWorld, body: Record<string, unknown>): Promise<Message> {
  const id = Number(body.messageId);
  if (!Number.isInteger(id) || id <= 0)
    throw new RequestError(400, "`messageId` must be a message ID");
  try {
    return (await world.client().messages.get({ message_id: id, apply_markdown: false })).message;
  } catch (error) {
    throw new RequestError(404, `message ${id} cannot be read: ${(error as Error).message}`);
  }
}

/** Sends `text` as the speaker into the conversation of `m`, as the web client replies to a message. */
async function replyIn(world: DevWorld, m: Message, text: string): Promise<void> {
  if (m.type === "stream" && typeof m.display_recipient === "string") {
    await world.send(
      { type: "channel", channel: m.display_recipient, topic: m.subject },
      undefined,
      text,
    );
    return;
  }
  const me = world.speaker().userId;
  const others = Array.isArray(m.display_recipient)
    ? m.display_recipient.map((r) => r.id).filter((id) => id !== me)
    : [];
  await world.send({ type: "direct", to: "" }, others.length > 0 ? others : [me], text);
}

/**
 * A click on zform choice `body.index` of message `body.messageId`: the choice's `reply` text is
 * sent as an ordinary message from the speaker in the same conversation (web/src/zform.ts).
 */
export async function chooseIn(
  world: DevWorld,
  body: Record<string, unknown>,
): Promise<{ reply: string }> {
  const m = await messageOf(world, body);
  const widget = readWidget(m.submessages, m.sender_id);
  if (widget?.type !== "choices")
    throw new RequestError(409, `message ${m.id} has no zform choices to click`);
  const index = Number(body.index);
  const choice = Number.isInteger(index) ? widget.choices[index] : undefined;
  if (!choice) throw new RequestError(400, `message ${m.id} has no choice ${String(body.index)}`);
  await replyIn(world, m, choice.reply);
  return { reply: choice.reply };
}

/**
 * A click on poll option `body.key` of message `body.messageId`: a `vote` submessage from the
 * speaker, 1 to vote or -1 to take back their vote (web/shared/src/poll_data.ts).
 */
export async function voteIn(
  world: DevWorld,
  body: Record<string, unknown>,
): Promise<{ type: "vote"; key: string; vote: 1 | -1 }> {
  const m = await messageOf(world, body);
  const widget = readWidget(m.submessages, m.sender_id);
  if (widget?.type !== "poll") throw new RequestError(409, `message ${m.id} is not a poll`);
  const key = typeof body.key === "string" ? body.key : "";
  const vote = voteFor(widget, key, world.speaker().userId);
  if (!vote) throw new RequestError(400, `the poll of message ${m.id} has no option "${key}"`);
  await world.client().messages.addSubmessage({
    message_id: m.id,
    msg_type: "widget",
    content: JSON.stringify(vote),
  });
  return vote;
}
