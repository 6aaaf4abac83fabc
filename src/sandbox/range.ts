// Which messages a narrow reaches for one user, and the anchor window GET /messages and flag updates use.
import { badRequest } from "./errors.js";
import type { CompiledNarrow } from "./narrow.js";
import { lowerBound } from "./messageIndex.js";
import type { Realm } from "./realm.js";
import type { SandboxUser, StoredMessage } from "./model.js";

export type Anchor = number | string;

/**
 * The messages a narrow may reach for one viewer, as a list to walk (ascending IDs, a superset)
 * and the test each message must pass. The list comes from the message index when the narrow
 * names a channel, topic or conversation, else the viewer's received messages; only
 * `channels:public` walks all history.
 */
export interface Candidates {
  readonly source: readonly StoredMessage[];
  accepts(m: StoredMessage): boolean;
}

/**
 * Messages the viewer may read through this narrow: the ones they received, plus, when the
 * narrow names an accessible channel (or `channels:public`), that channel's whole history.
 * `ownOnly` restricts to received messages (flag updates change only those).
 */
export function candidates(
  realm: Realm,
  viewer: SandboxUser,
  narrow: CompiledNarrow,
  ownOnly = false,
): Candidates {
  const historical = ownOnly ? undefined : narrow.historicalChannels();
  const accepts = (m: StoredMessage): boolean => {
    const own = m.flags.has(viewer.userId);
    let reachable = own && realm.canSee(viewer, m);
    if (!reachable && historical && m.kind === "stream") {
      const inScope = historical === "public" || historical.has(m.streamId!);
      reachable = inScope && realm.canSee(viewer, m);
    }
    return reachable && narrow.matches(m);
  };
  const source =
    narrow.indexedSource() ??
    (historical === "public" ? realm.messages : realm.index.user(viewer.userId));
  return { source, accepts };
}

/** Every candidate that passes, oldest first. */
export const allMatching = (c: Candidates): StoredMessage[] => c.source.filter(c.accepts);

export interface Window {
  messages: StoredMessage[];
  /** The anchor as a message ID after resolving `newest`, `oldest`, `first_unread`. */
  anchorId: number;
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
}

/** The server's LARGER_THAN_MAX_MESSAGE_ID: `newest`, and where numeric anchors are clamped. */
export const LARGER_THAN_ANY = 10_000_000_000_000_000;

/** Resolves the anchor against the candidates; `first_unread` walks from the oldest. */
export function resolveAnchor(
  anchor: Anchor,
  matching: Candidates,
  isUnread: (m: StoredMessage) => boolean,
): number {
  if (typeof anchor === "number") return Math.min(Math.max(anchor, 0), LARGER_THAN_ANY);
  switch (anchor) {
    case "newest":
      return LARGER_THAN_ANY;
    case "oldest":
      return 0;
    case "first_unread":
      return matching.source.find((m) => isUnread(m) && matching.accepts(m))?.id ?? LARGER_THAN_ANY;
    default:
      if (/^-?\d+$/.test(anchor)) return Math.min(Math.max(Number(anchor), 0), LARGER_THAN_ANY);
      throw badRequest("Invalid anchor");
  }
}

/**
 * Up to `numBefore` messages before the anchor, the anchor itself if included, up to `numAfter`
 * after, with the server's flags (`post_process_limited_query`): `found_oldest` when the anchor
 * is `oldest` (0) or fewer than `numBefore` came before it, `found_newest` when it is `newest` or
 * fewer than `numAfter` came after. So exactly `numBefore` older messages leave `found_oldest`
 * false, and `numAfter: 0` leaves `found_newest` false unless the anchor is `newest`. With both
 * counts 0 the anchor comes back even when `includeAnchor` is false, as the server's `id ==
 * anchor` query does. Walks outwards from the anchor's place, so the cost follows the window.
 */
export function window(
  matching: Candidates,
  anchorId: number,
  options: { numBefore: number; numAfter: number; includeAnchor: boolean },
): Window {
  const { source, accepts } = matching;
  const toLeft = anchorId === 0;
  const toRight = anchorId >= LARGER_THAN_ANY;
  const numBefore = toLeft ? 0 : options.numBefore;
  const numAfter = toRight ? 0 : options.numAfter;
  const start = lowerBound(source, anchorId);
  const candidate = source[start];
  const at = candidate && candidate.id === anchorId && accepts(candidate) ? candidate : undefined;
  const anchorFetched = options.includeAnchor || (numBefore === 0 && numAfter === 0);
  const before: StoredMessage[] = [];
  for (let i = start - 1; i >= 0 && before.length < numBefore; i--)
    if (accepts(source[i]!)) before.push(source[i]!);
  const after: StoredMessage[] = [];
  for (let i = at ? start + 1 : start; i < source.length && after.length < numAfter; i++)
    if (accepts(source[i]!)) after.push(source[i]!);
  before.reverse();
  const shownAnchor = at && anchorFetched ? at : undefined;
  return {
    messages: [...before, ...(shownAnchor ? [shownAnchor] : []), ...after],
    anchorId,
    foundAnchor: shownAnchor !== undefined,
    foundOldest: toLeft || before.length < options.numBefore,
    foundNewest: toRight || after.length < options.numAfter,
  };
}
