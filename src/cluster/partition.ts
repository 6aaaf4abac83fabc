// Partitions: a conversation's partition (a stable hash of its key) and which live node consumes each.

/** FNV-1a, 32 bits: a stable hash on every node and release. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** MurmurHash3's finaliser: spreads FNV's bits, so similar names do not score alike. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The partition of a conversation: its key's hash modulo the partition count. */
export function partitionOf(conversationKey: string, partitions: number): number {
  return fnv1a(conversationKey) % partitions;
}

/**
 * The partitions `node` should consume when `members` are alive, by rendezvous hashing: each
 * partition goes to the member with the highest hash of (member, partition). Every node computes
 * the same split from the same membership, and when a node joins or leaves only the partitions it
 * gains or held move (the others stay where they run).
 */
export function assignedTo(node: string, members: string[], partitions: number): number[] {
  const live = [...new Set(members)];
  if (!live.includes(node)) return [];
  const out: number[] = [];
  for (let p = 0; p < partitions; p++) {
    let best = "";
    let bestScore = -1;
    for (const member of live) {
      const score = mix(fnv1a(`${member}#${p}`));
      if (score > bestScore || (score === bestScore && member > best)) {
        best = member;
        bestScore = score;
      }
    }
    if (best === node) out.push(p);
  }
  return out;
}
