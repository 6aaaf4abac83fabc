// Message reports as moderators see them: the notices the server posts to the moderation channel.
import type { Realm } from "../sandbox/realm.js";

/** One report, read back from the notice in the moderation channel. */
export interface ObservedReport {
  /** The notice's message ID. */
  noticeId: number;
  reporterId: number;
  /** Who wrote the reported message. */
  authorId: number;
  /** Where the reported message was: `#**general>test**` or `a direct message`. */
  where: string;
  /** The server's label: `spam`, `harassment`, `inappropriate content`, `violating community norms`, `other reason`. */
  reason: string;
  /** The reporter's explanation, if any. */
  explanation?: string;
  /** The reported message's text, as quoted in the notice. */
  quoted: string;
}

const NOTICE =
  /^@_\*\*[^|*]+\|(\d+)\*\* reported a message by @_\*\*[^|*]+\|(\d+)\*\* in (.+?) for (.+?)\.(?:\n\n\*\*Explanation:\*\* ([\s\S]*?))?\n\n((?:> .*(?:\n|$))+)$/;

/** Every report notice posted so far to the realm's moderation request channel, oldest first. */
export function observeReports(realm: Realm): ObservedReport[] {
  const name = realm.settings.moderationRequestChannel;
  const channel = name === null ? undefined : realm.channelByName(name);
  if (!channel) return [];
  const reports: ObservedReport[] = [];
  for (const m of realm.messages) {
    if (m.streamId !== channel.streamId || !realm.users.get(m.senderId)?.isSystemBot) continue;
    const match = NOTICE.exec(m.content);
    if (!match) continue;
    reports.push({
      noticeId: m.id,
      reporterId: Number(match[1]),
      authorId: Number(match[2]),
      where: match[3]!,
      reason: match[4]!,
      ...(match[5] !== undefined && { explanation: match[5] }),
      quoted: match[6]!
        .trimEnd()
        .split("\n")
        .map((line) => line.slice(2))
        .join("\n"),
    });
  }
  return reports;
}
