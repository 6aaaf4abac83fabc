// `bot replay --diff`: a cassette's requests sent again to a sandbox, and every difference from the recorded answers.
import { Transport, type HttpResponse } from "../client/transport.js";
import type { Sandbox } from "../sandbox/server.js";
import {
  eventCauses,
  eventsOf,
  describeRequest,
  type Cassette,
  type CassetteExchange,
} from "./cassette.js";
import { injectAt } from "./inject.js";
import { postScripted, seedRealm, type SeededRealm } from "./seed.js";
import { compareShapes } from "./shape.js";

export interface ReplayDiffOptions {
  cassette: Cassette;
  /** The sandbox to seed from the cassette and compare; its bot account sends the requests. */
  sandbox: Sandbox;
  /** Where the requests go, when not straight to `sandbox.url` (a proxy in front of it). */
  site?: string;
  /** Per request, in ms (default 10 000). */
  timeoutMs?: number;
}

/** One difference between a recorded answer and the sandbox's. */
export interface Difference {
  /** The `seq` of every exchange of the cassette where it was found. */
  seqs: number[];
  request: string;
  what: "status" | "code" | "missing key" | "new key" | "type" | "event types";
  /** The key path, for key and type differences. */
  path?: string;
  recorded: string;
  replayed: string;
}

export interface ReplayDiff {
  /** Exchanges sent again and compared. */
  replayed: number;
  /** Exchanges not sent again, and why. */
  skipped: { seq: number; request: string; why: string }[];
  differences: Difference[];
  /** The event types recorded (heartbeats aside) and those the sandbox sent, in order. */
  events: { recorded: string[]; replayed: string[] };
}

/** Path parameters of an endpoint template whose values are IDs the sandbox numbers its own way. */
const ID_KINDS: Record<string, "users" | "streams" | "messages"> = {
  message_id: "messages",
  user_id: "users",
  stream_id: "streams",
};

class IdMap {
  readonly queues = new Map<string, string>();
  constructor(readonly seeded: SeededRealm) {}
  map(kind: "users" | "streams" | "messages", id: number): number {
    const table =
      kind === "users"
        ? this.seeded.userIds
        : kind === "streams"
          ? this.seeded.streamIds
          : this.seeded.messageIds;
    return table.get(id) ?? id;
  }
  /** The request's path with its ID segments (from the endpoint's template) mapped. */
  path(exchange: CassetteExchange): string {
    const template = exchange.endpoint.replace(/^\S+ /, "").split("/");
    const parts = exchange.path.split("/");
    if (template.length !== parts.length) return exchange.path;
    return parts
      .map((part, i) => {
        const name = /^\{(\w+)\}$/.exec(template[i]!)?.[1];
        const kind = name ? ID_KINDS[name] : undefined;
        return kind && /^\d+$/.test(part) ? String(this.map(kind, Number(part))) : part;
      })
      .join("/");
  }
  /** A field's value with recorded IDs mapped. */
  field(key: string, value: string, fields: Record<string, string>): string {
    const kind = ID_KINDS[key] ?? (key === "anchor" ? "messages" : undefined);
    if (kind && /^\d+$/.test(value)) return String(this.map(kind, Number(value)));
    if (key === "queue_id") return this.queues.get(value) ?? value;
    const list =
      key === "message_ids"
        ? "messages"
        : key === "user_ids" || key === "principals"
          ? "users"
          : undefined;
    const direct = key === "to" && (fields.type === "direct" || fields.type === "private");
    if ((list || direct) && value.startsWith("[")) {
      try {
        const ids = JSON.parse(value) as unknown[];
        return JSON.stringify(
          ids.map((id) => (typeof id === "number" ? this.map(list ?? "users", id) : id)),
        );
      } catch {
        return value;
      }
    }
    if (key === "to" && /^\d+$/.test(value)) return String(this.map("streams", Number(value)));
    return value;
  }
}

const codeOf = (body: Record<string, unknown> | undefined): string =>
  typeof body?.code === "string" ? body.code : "—";

/**
 * Seeds `sandbox` from the cassette (redrive's seeding), then sends each recorded request again,
 * in order, as the sandbox's bot: recorded IDs are mapped to the sandbox's (users, channels,
 * messages, queues), the people's messages are sent into the realm before the poll that
 * delivered them, a recorded queue expiry expires the queue first, and polls do not block.
 * Each answer is compared with the recorded one: status, error code, key paths and value types
 * (never values). Event batches are compared as one sequence of event types (heartbeats aside),
 * then event by event for shape. Not sent again: requests recorded without an answer (a dropped
 * connection) and rate-limit refusals (they say how busy the server was, not what it does).
 */
export async function replayDiff(options: ReplayDiffOptions): Promise<ReplayDiff> {
  const { cassette, sandbox } = options;
  const seeded = seedRealm(sandbox.realm, cassette, sandbox.realm.users.get(sandbox.bot.userId)!);
  const ids = new IdMap(seeded);
  const script = new Map(seeded.script.map((m) => [m.recordedId, m]));
  const inject = injectAt(cassette);
  const causes = eventCauses(cassette);
  const transport = new Transport({
    site: options.site ?? sandbox.url,
    email: sandbox.bot.email,
    apiKey: sandbox.bot.apiKey,
  });
  const result: ReplayDiff = {
    replayed: 0,
    skipped: [],
    differences: [],
    events: { recorded: [], replayed: [] },
  };
  const recordedEvents: Record<string, unknown>[] = [];
  const replayedEvents: Record<string, unknown>[] = [];
  const eventSeq: number[] = [];
  const lastEventId = new Map<string, number>();
  try {
    const done = new Set<CassetteExchange>();
    const replayOne = async (x: CassetteExchange): Promise<void> => {
      done.add(x);
      const request = `${x.method} ${x.path}`;
      if (x.status === undefined) {
        result.skipped.push({
          seq: x.seq,
          request,
          why: "recorded without an answer (network error)",
        });
        return;
      }
      if (x.status === 429 || codeOf(x.body) === "RATE_LIMIT_HIT") {
        result.skipped.push({ seq: x.seq, request, why: "a rate-limit refusal" });
        return;
      }
      if (x.multipart) {
        result.skipped.push({ seq: x.seq, request, why: "an upload (the file is not recorded)" });
        return;
      }
      const isPoll = x.method === "GET" && x.path === "/events";
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(x.fields)) fields[k] = ids.field(k, v, x.fields);
      // The people's messages are sent into the realm when they were sent then (`injectAt`).
      for (const id of inject.get(x) ?? []) {
        const m = script.get(id);
        if (!m) continue;
        script.delete(id);
        const posted = postScripted(sandbox.realm, m);
        if (posted !== undefined) seeded.messageIds.set(id, posted);
      }
      if (isPoll) {
        if (codeOf(x.body) === "BAD_EVENT_QUEUE_ID")
          sandbox.expireQueues({ queueId: fields.queue_id });
        fields.last_event_id = String(lastEventId.get(fields.queue_id ?? "") ?? -1);
        fields.dont_block = "true";
      }
      let res: HttpResponse;
      try {
        res = await transport.send({
          method: x.method,
          path: ids.path(x),
          fields: new URLSearchParams(fields),
          authenticate: true,
          timeoutMs: options.timeoutMs ?? 10_000,
          endpoint: x.endpoint,
        });
      } catch (error) {
        result.replayed++;
        result.differences.push({
          seqs: [x.seq],
          request: describeRequest(x.method, x.path, x.fields),
          what: "status",
          recorded: String(x.status),
          replayed: `no answer (${error instanceof Error ? error.message : String(error)})`,
        });
        return;
      }
      result.replayed++;
      const name = describeRequest(x.method, x.path, x.fields);
      const differ = (d: Omit<Difference, "seqs" | "request">): void => {
        const same = result.differences.find(
          (o) =>
            o.request === name &&
            o.what === d.what &&
            o.path === d.path &&
            o.recorded === d.recorded &&
            o.replayed === d.replayed,
        );
        if (same) same.seqs.push(x.seq);
        else result.differences.push({ seqs: [x.seq], request: name, ...d });
      };
      learnIds(x, res, ids, seeded);
      if (res.status !== x.status)
        differ({ what: "status", recorded: String(x.status), replayed: String(res.status) });
      if (codeOf(x.body) !== codeOf(res.body))
        differ({ what: "code", recorded: codeOf(x.body), replayed: codeOf(res.body) });
      const stripEvents = (body: Record<string, unknown> | undefined): unknown =>
        isPoll && body ? { ...body, events: [] } : body;
      if (x.status === res.status)
        for (const d of compareShapes(stripEvents(x.body), stripEvents(res.body)))
          differ({ what: d.kind, path: d.path, recorded: d.recorded, replayed: d.replayed });
      if (isPoll) {
        const got = Array.isArray(res.body.events)
          ? (res.body.events as Record<string, unknown>[])
          : [];
        for (const e of got)
          if (typeof e.id === "number") lastEventId.set(fields.queue_id ?? "", e.id);
        for (const e of eventsOf(x))
          if (e.type !== "heartbeat") {
            recordedEvents.push(e);
            eventSeq.push(x.seq);
          }
        for (const e of got) if (e.type !== "heartbeat") replayedEvents.push(e);
      }
    };
    for (const x of cassette.exchanges) {
      if (done.has(x)) continue;
      // The sends whose messages this batch shows go first: the file is in the order answered,
      // and a poll can be answered (with the event) before the send it shows is.
      for (const cause of causes.get(x) ?? []) if (!done.has(cause)) await replayOne(cause);
      await replayOne(x);
    }
  } finally {
    await transport.close();
  }
  result.events = {
    recorded: recordedEvents.map((e) => String(e.type)),
    replayed: replayedEvents.map((e) => String(e.type)),
  };
  compareEvents(result, recordedEvents, replayedEvents, eventSeq);
  return result;
}

/** What a replayed answer tells about the sandbox's IDs: a new queue, a message sent. */
function learnIds(x: CassetteExchange, res: HttpResponse, ids: IdMap, seeded: SeededRealm): void {
  if (res.status !== 200 || x.status !== 200 || !x.body) return;
  if (typeof x.body.queue_id === "string" && typeof res.body.queue_id === "string")
    ids.queues.set(x.body.queue_id, res.body.queue_id);
  if (
    x.method === "POST" &&
    x.path === "/messages" &&
    typeof x.body.id === "number" &&
    typeof res.body.id === "number"
  )
    seeded.messageIds.set(x.body.id, res.body.id);
}

/** The event types as one sequence, then each pair of events of the same type for shape. */
function compareEvents(
  result: ReplayDiff,
  recorded: Record<string, unknown>[],
  replayed: Record<string, unknown>[],
  seqs: number[],
): void {
  const { recorded: a, replayed: b } = result.events;
  if (a.join() !== b.join()) {
    result.differences.push({
      seqs: [...new Set(seqs)],
      request: "GET /events (every batch)",
      what: "event types",
      recorded: a.join(", ") || "none",
      replayed: b.join(", ") || "none",
    });
    return;
  }
  const seen = new Set<string>();
  for (let i = 0; i < recorded.length; i++) {
    for (const d of compareShapes(recorded[i], replayed[i])) {
      const key = `${a[i]} ${d.kind} ${d.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      result.differences.push({
        seqs: [seqs[i]!],
        request: `GET /events: a ${a[i]} event`,
        what: d.kind,
        path: d.path,
        recorded: d.recorded,
        replayed: d.replayed,
      });
    }
  }
}

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The Markdown report of a replay, to attach to a bug report. */
export function diffReport(
  diff: ReplayDiff,
  cassette: Cassette,
  source: string,
  sandboxVersion: string,
): string {
  const server = cassette.server;
  const lines = [
    `# Replay of ${source} against the topicbot sandbox`,
    "",
    `- Recorded: ${cassette.header.recordedAt} by topicbot ${cassette.header.topicbot}` +
      (server
        ? `, server feature level ${server.featureLevel ?? "?"} (version ${server.version ?? "?"})`
        : ""),
    `- Replayed against: the sandbox of topicbot ${sandboxVersion}`,
    `- Requests replayed: ${diff.replayed}; not replayed: ${diff.skipped.length}; differences: ${diff.differences.length}`,
    "",
    "## Differences",
    "",
  ];
  if (diff.differences.length === 0)
    lines.push("None: every replayed answer has the recorded status, code, keys and shapes.");
  else {
    lines.push(
      "| # | Request | Difference | Key | Recorded | Sandbox |",
      "|---|---|---|---|---|---|",
    );
    for (const d of diff.differences)
      lines.push(
        `| ${d.seqs.join(", ")} | ${cell(d.request)} | ${d.what} | ${d.path ? `\`${cell(d.path)}\`` : ""} | ${cell(d.recorded)} | ${cell(d.replayed)} |`,
      );
  }
  if (diff.skipped.length > 0) {
    lines.push("", "## Not replayed", "");
    for (const s of diff.skipped) lines.push(`- #${s.seq} ${s.request}: ${s.why}`);
  }
  lines.push(
    "",
    "## Events",
    "",
    `- Recorded: ${diff.events.recorded.join(", ") || "none"}`,
    `- Sandbox: ${diff.events.replayed.join(", ") || "none"}`,
    "",
  );
  return lines.join("\n");
}
