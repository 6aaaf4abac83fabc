// When a replay sends each person's recorded message into the sandbox: before the first answer that showed it.
import { eventsOf, type Cassette, type CassetteExchange } from "./cassette.js";

/**
 * Before which exchange each person's message is sent again: before the poll whose events
 * delivered it. One that a fetch showed first (a catch-up after a lost queue) came while the bot
 * was registering again: if a later poll of the queue registered just before that fetch delivered
 * it too, it came after that registration (the new queue has it), so before the fetch; if no
 * poll of that queue delivered it, it came while the bot had no queue, so before the registration.
 * Which of the two it was is a race between the person's send and the bot's registration, not a
 * property of the server, so the replay sends it where the recording shows it fell.
 */
export function injectAt(cassette: Cassette): Map<CassetteExchange, number[]> {
  const at = new Map<CassetteExchange, number[]>();
  const placed = new Set<number>();
  const polledOn = pollQueues(cassette);
  let lastRegister: CassetteExchange | undefined;
  for (const x of cassette.exchanges) {
    if (x.method === "POST" && x.path === "/register") lastRegister = x;
    const isPoll = x.method === "GET" && x.path === "/events";
    for (const id of messagesShown(x)) {
      if (placed.has(id)) continue;
      placed.add(id);
      const queue = lastRegister?.body?.queue_id;
      const afterRegister = typeof queue === "string" && polledOn.get(id)?.has(queue) === true;
      const before = isPoll || afterRegister ? x : (lastRegister ?? x);
      let list = at.get(before);
      if (!list) at.set(before, (list = []));
      list.push(id);
    }
  }
  return at;
}

/** For each message a poll delivered, the queues whose polls delivered it. */
function pollQueues(cassette: Cassette): Map<number, Set<string>> {
  const on = new Map<number, Set<string>>();
  for (const x of cassette.exchanges) {
    if (x.method !== "GET" || x.path !== "/events" || !x.fields.queue_id) continue;
    for (const id of messagesShown(x)) {
      let queues = on.get(id);
      if (!queues) on.set(id, (queues = new Set()));
      queues.add(x.fields.queue_id);
    }
  }
  return on;
}

/** The IDs of the messages a recorded answer holds. */
export function messagesShown(x: CassetteExchange): number[] {
  const ids: number[] = [];
  for (const event of eventsOf(x)) {
    const id = (event.message as { id?: unknown } | undefined)?.id;
    if (typeof id === "number") ids.push(id);
  }
  if (x.method === "GET" && x.path === "/messages" && Array.isArray(x.body?.messages))
    for (const m of x.body.messages as { id?: unknown }[])
      if (typeof m.id === "number") ids.push(m.id);
  return ids;
}
