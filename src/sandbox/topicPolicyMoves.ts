// Topic visibility policies (muted, unmuted, followed) follow a whole topic when it moves, merged as the server merges them.
import type { Realm } from "./realm.js";

const INHERIT = 0;
const MUTED = 1;
const UNMUTED = 2;
const FOLLOWED = 3;

/** The server's get_visibility_policy_after_merge: the more visible of the two wins. */
function merged(a: number, b: number): number {
  const both = new Set([a, b]);
  for (const policy of [FOLLOWED, UNMUTED, INHERIT]) if (both.has(policy)) return policy;
  return MUTED;
}

/** A topic as the policies key it. */
export interface PolicyTopic {
  streamId: number;
  topic: string;
}

/** Users with a policy on the topic, with the policy. */
function policiesOn(realm: Realm, where: PolicyTopic): Map<number, number> {
  const suffix = `:${where.streamId}:${where.topic.toLowerCase()}`;
  const found = new Map<number, number>();
  for (const [key, policy] of realm.userTopics)
    if (key.endsWith(suffix) && policy !== INHERIT) {
      const userId = Number(key.slice(0, key.length - suffix.length));
      if (Number.isInteger(userId)) found.set(userId, policy);
    }
  return found;
}

/**
 * After a move of every message of a topic the mover could see: each user's policy leaves the
 * old topic (a `user_topic` event with policy 0) and lands on the new one, merged with what they
 * had there when it held messages already; users who lost access to the messages only lose
 * their old policy (the server's do_update_message).
 */
export function moveTopicPolicies(
  realm: Realm,
  from: PolicyTopic,
  to: PolicyTopic,
  targetHadMessages: boolean,
  lostAccess: ReadonlySet<number>,
): void {
  const set = (userId: number, where: PolicyTopic, policy: number): void => {
    realm.setTopicPolicy(userId, where.streamId, where.topic, policy);
    realm.pushEvent([userId], {
      type: "user_topic",
      stream_id: where.streamId,
      topic_name: where.topic,
      last_updated: realm.nowSeconds(),
      visibility_policy: policy,
    });
  };
  const before = policiesOn(realm, from);
  const there = policiesOn(realm, to);
  for (const userId of new Set([...before.keys(), ...there.keys()])) {
    const old = before.get(userId) ?? INHERIT;
    if (lostAccess.has(userId)) {
      if (old !== INHERIT) set(userId, from, INHERIT);
      continue;
    }
    const target = there.get(userId) ?? INHERIT;
    if (old !== INHERIT) set(userId, from, INHERIT);
    const next = targetHadMessages ? merged(old, target) : old;
    if (next !== target) set(userId, to, next);
  }
}
