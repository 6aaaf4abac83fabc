// The floors of the reply benchmark: a bare undici long-poll + POST bot answering `!echo <n>`, no framework.
// Usage: node bench/bare-echo.ts <site> <email> <apiKey> [lanes|concurrent]; prints "ready" when polling.
// `lanes` (the default) answers a poll's commands in order within each topic and polls again once
// they are all answered; `concurrent` answers every command at once and polls again at once: the
// simplest fast bot, which keeps no order.
import { Pool } from "undici";

const [site, email, apiKey, mode = "lanes"] = process.argv.slice(2);
if (!site || !email || !apiKey || (mode !== "lanes" && mode !== "concurrent"))
  throw new Error("usage: bare-echo.ts <site> <email> <apiKey> [lanes|concurrent]");
const pool = new Pool(site, { connections: 16 });
const headers = {
  authorization: `Basic ${Buffer.from(`${email}:${apiKey}`).toString("base64")}`,
  "content-type": "application/x-www-form-urlencoded",
};

async function call(
  method: "GET" | "POST" | "DELETE",
  path: string,
  params: Record<string, string>,
) {
  const body = new URLSearchParams(params).toString();
  const res = await pool.request(
    method !== "POST"
      ? { method, path: `${path}?${body}`, headers }
      : { method, path, headers, body },
  );
  return (await res.body.json()) as Record<string, unknown>;
}

const me = (await call("GET", "/api/v1/users/me", {})) as { user_id: number };
const reg = (await call("POST", "/api/v1/register", { event_types: '["message"]' })) as {
  queue_id: string;
  last_event_id: number;
};
// Deleting the queue on SIGTERM, as the bot does, so the sandbox stops filling it.
process.once("SIGTERM", () => {
  void call("DELETE", "/api/v1/events", { queue_id: reg.queue_id }).finally(() => process.exit(0));
});
process.stdout.write("ready\n");
let last = reg.last_event_id;
for (;;) {
  const { events } = (await call("GET", "/api/v1/events", {
    queue_id: reg.queue_id,
    last_event_id: String(last),
  })) as { events: { id: number; type: string; message?: Record<string, unknown> }[] };
  // One lane per topic, as the bot has: replies within a topic go out in order.
  const lanes = new Map<string, Promise<unknown>>();
  for (const event of events) {
    last = Math.max(last, event.id);
    const m = event.message;
    if (!m || m.sender_id === me.user_id) continue;
    const n = /^!echo (\d+)$/.exec(String(m.content))?.[1];
    if (!n) continue;
    const topic = String(m.subject);
    const post = () =>
      call("POST", "/api/v1/messages", {
        type: "channel",
        to: String(m.stream_id),
        topic,
        content: `echo ${n}`,
      });
    if (mode === "concurrent") post().catch((error: unknown) => console.error(error));
    else lanes.set(topic, (lanes.get(topic) ?? Promise.resolve()).then(post));
  }
  await Promise.all(lanes.values());
}
