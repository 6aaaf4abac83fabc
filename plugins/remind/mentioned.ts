// Who a reminder's `@**Name**` names: the user the server resolved the mention to when it rendered the message, read back by ID.
import type { ChatUser, MessageContext, UserLookup } from "topicbot";

/** `<span class="user-mention" data-user-id="8">@Mia Member</span>`, silent ones without the `@`. */
const MENTION_SPAN = /<span class="user-mention( silent)?" data-user-id="(\d+)">@?([^<]*)<\/span>/g;

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
  "&#x27;": "'",
};

const unescapeHtml = (text: string): string =>
  text.replace(/&(?:amp|lt|gt|quot|#39|#x27);/g, (e) => ENTITIES[e]!);

/**
 * The IDs of the users the message's rendered content mentions by the name `name`
 * (case-insensitively). The server resolved each mention when the message was sent, by its own
 * index of names: asking it for the message costs one request whatever the organization's size,
 * where matching names here would need the whole user list.
 */
export async function mentionedIds(ctx: MessageContext, name: string): Promise<number[]> {
  const { message } = await ctx.api.messages.get({
    message_id: ctx.message.id,
    apply_markdown: true,
  });
  const wanted = name.trim().toLowerCase();
  const ids: number[] = [];
  for (const match of message.content.matchAll(MENTION_SPAN)) {
    const id = Number(match[2]);
    if (unescapeHtml(match[3]!).trim().toLowerCase() === wanted && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * The user a reminder's target names, as the sender may see them (a guest limited by the realm's
 * user access sees only some), or undefined: by ID for `@**Name|id**`, else the user the server
 * rendered the mention as. Never a list of the organization.
 */
export async function mentionedUser(
  ctx: MessageContext,
  users: UserLookup,
  target: { name: string; userId?: number },
): Promise<ChatUser | undefined> {
  const ids = target.userId !== undefined ? [target.userId] : await mentionedIds(ctx, target.name);
  for (const id of ids) {
    const user = await users.user(id);
    if (user?.isActive && (await users.canAccess(ctx.sender.userId, user.userId))) return user;
  }
  return undefined;
}
