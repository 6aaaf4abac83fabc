// Which messages a narrow reaches for one user, and the anchor window GET /messages and flag updates use.
import { badRequest } from "./errors.js";
import type { CompiledNarrow } from "./narrow.js";
import type { Realm, SandboxUser, StoredMessage } from "./realm.js";

export type Anchor = number | string;

/**
 * Messages the viewer may read through this narrow, oldest first: the ones they received, plus,
 * when the narrow names an accessible channel (or `channels:public`), that channel's whole history.
 * `ownOnly` restricts to received messages (flag updates change only those).
 */
export function candidates(
  realm: Realm,
  viewer: SandboxUser,
  narrow: CompiledNarrow,
  ownOnly = false,
): StoredMessage[] {
  const historical = ownOnly ? undefined : narrow.historicalChannels();
  return realm.messages.filter((m) => {
    const own = m.flags.has(viewer.userId);
    let reachable = own && realm.canSee(viewer, m);
    if (!reachable && historical && m.kind === "stream") {
      const inScope = historical === "public" || historical.has(m.streamId!);
      reachable = inScope && realm.canSee(viewer, m);
    }
    return reachable && narrow.matches(m);
  });
}

export interface Window {
  messages: StoredMessage[];
  /** The anchor as a message ID after resolving `newest`, `oldest`, `first_unread`. */
  anchorId: number;
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
}

const LARGER_THAN_ANY = 10_000_000_000_000_000;

/** Resolves the anchor against matching messages (ascending IDs). */
export function resolveAnchor(
  anchor: Anchor,
  matching: readonly StoredMessage[],
  isUnread: (m: StoredMessage) => boolean,
): number {
  if (typeof anchor === "number") return anchor;
  switch (anchor) {
    case "newest":
      return LARGER_THAN_ANY;
    case "oldest":
      return 0;
    case "first_unread":
      return matching.find(isUnread)?.id ?? LARGER_THAN_ANY;
    default:
      if (/^\d+$/.test(anchor)) return Number(anchor);
      throw badRequest(`Invalid anchor: ${anchor}`);
  }
}

/** Up to `numBefore` messages before the anchor, the anchor itself if included, up to `numAfter` after. */
export function window(
  matching: readonly StoredMessage[],
  anchorId: number,
  options: { numBefore: number; numAfter: number; includeAnchor: boolean },
): Window {
  const before = matching.filter((m) => m.id < anchorId);
  const at = matching.find((m) => m.id === anchorId);
  const after = matching.filter((m) => m.id > anchorId);
  const picked = [
    ...before.slice(Math.max(0, before.length - options.numBefore)),
    ...(at && options.includeAnchor ? [at] : []),
    ...after.slice(0, options.numAfter),
  ];
  return {
    messages: picked,
    anchorId,
    foundAnchor: at !== undefined && options.includeAnchor,
    foundOldest: before.length <= options.numBefore,
    foundNewest: after.length <= options.numAfter,
  };
}
