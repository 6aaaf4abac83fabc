// The start-up baseline the issue names: a minimal zulip-js bot answering `!echo <n>`, as its README writes one.
// Usage: node dist/bench/zulip-js-echo.js <site> <email> <apiKey>; prints "ready" once its queue is registered.
// It uses zulip-js's queue API (register, then events.retrieve in a loop), which is what `callOnEachEvent`
// does inside; calling the two directly lets it say "ready" after the queue exists, as the other bots do.
import zulipInit from "zulip-js";

const [site, email, apiKey] = process.argv.slice(2);
if (!site || !email || !apiKey) throw new Error("usage: zulip-js-echo.js <site> <email> <apiKey>");

interface ZulipEvent {
  id: number;
  type: string;
  message?: { sender_id: number; content: string; subject: string; stream_id?: number };
}
interface ZulipJs {
  users: { me: { getProfile(): Promise<{ user_id: number }> } };
  queues: {
    register(p: { event_types: string[] }): Promise<{ queue_id: string; last_event_id: number }>;
    deregister(p: { queue_id: string }): Promise<unknown>;
  };
  events: {
    retrieve(p: { queue_id: string; last_event_id: number }): Promise<{ events?: ZulipEvent[] }>;
  };
  messages: { send(p: Record<string, string | number>): Promise<unknown> };
}

const zulip = (await zulipInit({ username: email, apiKey, realm: site })) as ZulipJs;
const me = await zulip.users.me.getProfile();
const reg = await zulip.queues.register({ event_types: ["message"] });
process.once("SIGTERM", () => {
  void zulip.queues.deregister({ queue_id: reg.queue_id }).finally(() => process.exit(0));
});
process.stdout.write("ready\n");
let last = reg.last_event_id;
for (;;) {
  const { events = [] } = await zulip.events.retrieve({
    queue_id: reg.queue_id,
    last_event_id: last,
  });
  for (const event of events) {
    last = Math.max(last, event.id);
    const m = event.message;
    if (!m || m.sender_id === me.user_id) continue;
    const n = /^!echo (\d+)$/.exec(m.content)?.[1];
    if (n === undefined) continue;
    await zulip.messages.send({
      type: "stream",
      to: m.stream_id ?? "",
      topic: m.subject,
      content: `echo ${n}`,
    });
  }
}
