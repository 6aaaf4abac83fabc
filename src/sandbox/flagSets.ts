// A user's personal flags on one message, as shared, immutable sets: one per distinct combination.
//
// Every stored message keeps a flag set for each user who has it (its UserMessage rows), and almost
// all of them are equal: none, or just `read` for the sender, or `mentioned`. A fresh `Set` per
// user per message made the flags most of a stored message's heap (about 1.7 KB a message in a
// channel of ten), so history cost garbage-collection time in proportion to its length. Interned
// sets cost one pointer per user per message. Their order is the server's (the bit order of
// `UserMessage.flags`), whatever order the flags were added in.

/** The flags in the order the server lists them (`UserMessage.ALL_FLAGS`); any other comes after, by name. */
const SERVER_ORDER = [
  "read",
  "starred",
  "collapsed",
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "group_mentioned",
  "has_alert_word",
  "historical",
];

const rank = (flag: string): number => {
  const i = SERVER_ORDER.indexOf(flag);
  return i === -1 ? SERVER_ORDER.length : i;
};

const byServerOrder = (a: string, b: string): number =>
  rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);

/** The one set for each combination in use, by its flags joined in server order. */
const interned = new Map<string, ReadonlySet<string>>();

/** The shared set holding exactly `flags` (duplicates ignored), in the server's order. */
export function flagSet(flags: Iterable<string>): ReadonlySet<string> {
  // A fast path: one flag (a sender's `read`) is its own key, with nothing to sort or join.
  if (Array.isArray(flags) && flags.length === 1) {
    const known = interned.get(flags[0] as string);
    if (known !== undefined) return known;
  }
  const sorted = [...new Set(flags)].sort(byServerOrder);
  const key = sorted.join(",");
  let set = interned.get(key);
  if (set === undefined) {
    set = new Set(sorted);
    interned.set(key, set);
  }
  return set;
}

/** The shared set with no flags. */
export const NO_FLAGS = flagSet([]);

/** The shared set of `flags` plus `flag`. */
export function withFlag(flags: ReadonlySet<string>, flag: string): ReadonlySet<string> {
  return flags.has(flag) ? flags : flagSet([...flags, flag]);
}

/** The shared set of `flags` without `flag`. */
export function withoutFlag(flags: ReadonlySet<string>, flag: string): ReadonlySet<string> {
  return flags.has(flag) ? flagSet([...flags].filter((f) => f !== flag)) : flags;
}
