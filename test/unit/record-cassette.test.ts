// The cassette's pure parts: sanitizing, reading, rotation, shapes, lockdown matching.
import { describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sanitizer, hashText } from "../../src/record/sanitize.js";
import { parseCassette, type Cassette, type CassetteExchange } from "../../src/record/cassette.js";
import { CassetteWriter } from "../../src/record/writer.js";
import { compareShapes } from "../../src/record/shape.js";
import { CassetteMissError, LockdownReplayer } from "../../src/record/lockdown.js";
import { NetworkError } from "../../src/client/errors.js";

describe("Sanitizer", () => {
  it("replaces emails and names consistently, and leaves aliases as they are", () => {
    const s = new Sanitizer({ secrets: ["s3cr3t-api-key-1234"] });
    const body = s.value({
      messages: [
        {
          sender_email: "Mia@Example.com",
          sender_full_name: "Mia Member",
          content: "hi @**Adam Admin**, mail mia@example.com, key s3cr3t-api-key-1234",
        },
        {
          sender_email: "adam@example.com",
          sender_full_name: "Adam Admin",
          content: "Mia Member?",
        },
      ],
      presence: { "mia@example.com": { status: "active" } },
      api_key: "abcdef",
    }) as Record<string, unknown>;
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/example\.com|Mia|Adam|s3cr3t/);
    const [first, second] = body.messages as Record<string, string>[];
    expect(first!.sender_email).toBe("user-1@example.invalid");
    expect(first!.sender_full_name).toBe("User 1");
    expect(second!.sender_full_name).toBe("User 2");
    expect(first!.content).toBe("hi @**User 2**, mail user-1@example.invalid, key [secret]");
    expect(second!.content).toBe("User 1?");
    expect(Object.keys(body.presence as object)).toEqual(["user-1@example.invalid"]);
    expect(body.api_key).toBe("[secret]");
    // Sanitizing what is sanitized changes nothing, in a fresh sanitizer too.
    expect(new Sanitizer().value(body)).toEqual(body);
    expect(s.value(body)).toEqual(body);
  });

  it("replaces short names in mentions, and the server's address", () => {
    const s = new Sanitizer({ site: "https://chat.corp.example:8443/" });
    const out = s.value({
      sender_full_name: "Max",
      content: "@**Max** and @_**Max|12** said max",
      realm_url: "https://chat.corp.example:8443",
      avatar_url: "https://chat.corp.example:8443/user_avatars/1.png",
    });
    expect(out).toEqual({
      sender_full_name: "User 1",
      content: "@**User 1** and @_**User 1|12** said max",
      realm_url: "https://server.invalid",
      avatar_url: "https://server.invalid/user_avatars/1.png",
    });
  });

  it("hashes content when asked, once", () => {
    const s = new Sanitizer({ hashContent: true });
    const out = s.value({ content: "secret plans", subject: "topic" }) as Record<string, string>;
    expect(out.content).toBe(hashText("secret plans"));
    expect(out.content).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(out.subject).toBe("topic");
    expect(s.value(out)).toEqual(out);
  });

  it("keeps everything when off", () => {
    const s = new Sanitizer({ enabled: false });
    const body = { email: "a@b.org", full_name: "Ann" };
    expect(s.value(body)).toEqual(body);
  });
});

const header = JSON.stringify({
  type: "cassette",
  version: 1,
  recordedAt: "2026-12-01T00:00:00Z",
  site: "https://server.invalid",
  topicbot: "0.1.0",
  sanitized: true,
  contentHashed: false,
  part: 1,
});

function exchange(seq: number, extra: Partial<CassetteExchange>): string {
  return JSON.stringify({
    type: "exchange",
    seq,
    at: seq,
    ms: 1,
    method: "GET",
    path: "/users/me",
    endpoint: "GET /users/me",
    fields: {},
    status: 200,
    body: { result: "success", msg: "" },
    ...extra,
  });
}

describe("parseCassette", () => {
  it("reads the header, the server and the exchanges, and a line cut off at the end", () => {
    const c = parseCassette(
      [
        header,
        '{"type":"server","featureLevel":400,"version":"10.0"}',
        exchange(1, {}),
        '{"type":"exch',
      ].join("\n"),
    );
    expect(c.server).toEqual({ type: "server", featureLevel: 400, version: "10.0" });
    expect(c.exchanges).toHaveLength(1);
  });

  it("names the file and line of what it cannot read", () => {
    expect(() => parseCassette(`${exchange(1, {})}\n`, "x.jsonl")).toThrow(
      "x.jsonl:1: a cassette starts with its header line",
    );
    expect(() => parseCassette(`${header}\nnot json\n${exchange(1, {})}`, "x.jsonl")).toThrow(
      "x.jsonl:2: not a JSON line",
    );
    expect(() => parseCassette(header.replace('"version":1', '"version":9'), "x.jsonl")).toThrow(
      "cassette version 9, this topicbot reads version 1",
    );
    expect(() => parseCassette("", "x.jsonl")).toThrow("x.jsonl: empty");
  });
});

describe("CassetteWriter", () => {
  it("rotates past maxBytes, keeps `keep` files, each starting with the preamble", async () => {
    const dir = await mkdtemp(join(tmpdir(), "topicbot-cassette-"));
    try {
      const path = join(dir, "c.jsonl");
      const writer = new CassetteWriter<string>({
        path,
        maxBytes: 4096,
        keep: 2,
        format: (lines) => lines.map((l) => `${l}\n`).join(""),
        preamble: () => [header],
      });
      const line = "x".repeat(1000);
      for (let i = 0; i < 20; i++)
        writer.write([JSON.stringify({ type: "server", n: i, pad: line })]);
      writer.close();
      expect((await readdir(dir)).sort()).toEqual(["c.jsonl", "c.jsonl.1", "c.jsonl.2"]);
      for (const name of ["c.jsonl", "c.jsonl.1", "c.jsonl.2"]) {
        const text = await readFile(join(dir, name), "utf8");
        expect(text.split("\n")[0]).toBe(header);
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096 + header.length + 1);
      }
      const last = (await readFile(path, "utf8")).trim().split("\n").at(-1)!;
      expect(JSON.parse(last).n).toBe(19);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("formats each batch once and writes the batches in order, readable by the owner alone", async () => {
    const dir = await mkdtemp(join(tmpdir(), "topicbot-cassette-"));
    try {
      const path = join(dir, "c.jsonl");
      const batches: number[][] = [];
      const writer = new CassetteWriter<number>({
        path,
        format: (items) => {
          batches.push([...items]);
          return items.map((n) => `{"n":${n}}\n`).join("");
        },
        preamble: () => [header],
      });
      for (let b = 0; b < 3; b++) writer.write(Array.from({ length: 100 }, (_, i) => b * 100 + i));
      writer.write([]);
      writer.close();
      expect(batches.map((b) => b.length)).toEqual([100, 100, 100]);
      const lines = (await readFile(path, "utf8")).trim().split("\n");
      expect(lines[0]).toBe(header);
      expect(lines.slice(1).map((l) => (JSON.parse(l) as { n: number }).n)).toEqual(
        Array.from({ length: 300 }, (_, n) => n),
      );
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("drops a batch written after close, keeping the file as it was", async () => {
    const dir = await mkdtemp(join(tmpdir(), "topicbot-cassette-"));
    try {
      const path = join(dir, "c.jsonl");
      const errors: unknown[] = [];
      const writer = new CassetteWriter<string>({
        path,
        format: (lines) => lines.map((l) => `${l}\n`).join(""),
        preamble: () => [header],
        onError: (error) => errors.push(error),
      });
      writer.write(['{"n":1}']);
      writer.close();
      writer.write(['{"n":2}']);
      expect(await readFile(path, "utf8")).toBe(`${header}\n{"n":1}\n`);
      expect(errors).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("stops recording, and says so once, when formatting or writing fails; the caller goes on", async () => {
    const dir = await mkdtemp(join(tmpdir(), "topicbot-cassette-"));
    try {
      const errors: unknown[] = [];
      const writer = new CassetteWriter<string>({
        path: join(dir, "c.jsonl"),
        format: () => {
          throw new Error("cannot format");
        },
        preamble: () => [header],
        onError: (error) => errors.push(error),
      });
      expect(() => {
        for (let n = 0; n < 5; n++) writer.write(["x"]);
      }).not.toThrow();
      writer.close();
      expect(errors.map((e) => (e as Error).message)).toEqual(["cannot format"]);
      // A path that cannot be a file (it is a folder): the first write says so, once.
      const unwritable = new CassetteWriter<string>({
        path: dir,
        format: (lines) => lines.join("\n"),
        preamble: () => [header],
        onError: (error) => errors.push(error),
      });
      unwritable.write(["a"]);
      unwritable.write(["b"]);
      expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual([undefined, "EISDIR"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("compareShapes", () => {
  it("reports missing and new keys once at their top, types, and not values", () => {
    const recorded = {
      a: 1,
      b: { c: "x", d: [1] },
      list: [{ id: 1, name: "n" }],
      empty: [] as unknown[],
    };
    const replayed = {
      a: 2,
      e: { f: 1 },
      list: [
        { id: "1", name: "m" },
        { id: "2", name: null },
      ],
      empty: [{ z: 1 }],
    };
    expect(compareShapes(recorded, replayed)).toEqual([
      { kind: "missing key", path: "b", recorded: "object", replayed: "—" },
      { kind: "type", path: "list[].id", recorded: "number", replayed: "string" },
      { kind: "new key", path: "e", recorded: "—", replayed: "object" },
    ]);
  });

  it("treats objects keyed by IDs or emails as maps", () => {
    expect(
      compareShapes({ m: { "1": { x: 1 } } }, { m: { "7": { x: 2 }, "9": { x: 3 } } }),
    ).toEqual([]);
  });
});

function cassetteOf(exchanges: Partial<CassetteExchange>[]): Cassette {
  return parseCassette([header, ...exchanges.map((x, i) => exchange(i + 1, x))].join("\n"));
}

const request = (method: string, path: string, fields = "") => ({
  method,
  path,
  fields,
  authenticate: true,
  timeoutMs: 1000,
  endpoint: `${method} ${path}`,
});

describe("LockdownReplayer", () => {
  it("serves recorded answers per request in order, failures as failures, and names a miss", async () => {
    const replayer = new LockdownReplayer(
      cassetteOf([
        {
          method: "POST",
          path: "/messages",
          endpoint: "POST /messages",
          fields: { content: "a", to: "1" },
          status: 429,
          body: { result: "error", code: "RATE_LIMIT_HIT" },
          headers: { "retry-after": "1" },
        },
        {
          method: "POST",
          path: "/messages",
          endpoint: "POST /messages",
          fields: { content: "a", to: "1" },
          body: { result: "success", id: 5 },
        },
        {
          status: undefined,
          body: undefined,
          error: { message: "GET /users/me: request failed: other side closed" },
        },
      ]),
    );
    const first = await replayer.send(request("POST", "/messages", "to=1&content=a"));
    expect(first.status).toBe(429);
    expect(first.headers["retry-after"]).toBe("1");
    expect((await replayer.send(request("POST", "/messages", "content=a&to=1"))).body.id).toBe(5);
    await expect(replayer.send(request("GET", "/users/me"))).rejects.toThrow(
      new NetworkError("request failed: other side closed", { endpoint: "GET /users/me" }),
    );
    await expect(replayer.send(request("POST", "/messages", "to=1&content=b"))).rejects.toThrow(
      CassetteMissError,
    );
    await expect(replayer.send(request("POST", "/messages", "to=1&content=a"))).rejects.toThrow(
      "lockdown: the bot sent POST /messages to=1&content=a, which the cassette does not hold again",
    );
    await expect(replayer.send(request("DELETE", "/messages/1"))).rejects.toThrow(
      /^lockdown: the bot sent DELETE \/messages\/1, which the cassette does not hold$/,
    );
    expect(replayer.misses.map((m) => m.request)).toEqual([
      "POST /messages to=1&content=b",
      "POST /messages to=1&content=a",
      "DELETE /messages/1",
    ]);
    expect(replayer.unserved()).toEqual([]);
  });

  it("hands a poll's events to its stream, and leaves a poll past the last batch unanswered until aborted", async () => {
    const replayer = new LockdownReplayer(
      cassetteOf([
        {
          method: "GET",
          path: "/events",
          endpoint: "GET /events",
          fields: { queue_id: "q", last_event_id: "-1" },
          body: { result: "success", events: [{ id: 0, type: "heartbeat" }] },
        },
      ]),
    );
    const taken: unknown[] = [];
    const stream = { field: "events", take: (items: unknown[]) => void taken.push(...items) };
    const res = await replayer.send({
      ...request("GET", "/events", "queue_id=q&last_event_id=-1"),
      stream,
    });
    expect(taken).toEqual([{ id: 0, type: "heartbeat" }]);
    expect(res.body.events).toEqual([]);
    await replayer.eventsDelivered();
    const abort = new AbortController();
    const quiet = replayer.send({
      ...request("GET", "/events", "queue_id=q&last_event_id=0"),
      signal: abort.signal,
      stream,
    });
    abort.abort(new Error("stopped"));
    await expect(quiet).rejects.toThrow("stopped");
    expect(replayer.misses).toEqual([]);
  });
});

describe("record: in bot.config.yaml", () => {
  it("takes a path, with defaults for the rest", async () => {
    const { loadConfig } = await import("../../src/config/load.js");
    expect(
      loadConfig("record:\n  path: cassettes/bot.jsonl\n", {}, "bot.config.yaml").record,
    ).toEqual({
      path: "cassettes/bot.jsonl",
      sanitize: true,
      hashContent: false,
      maxBytes: 64 * 1024 * 1024,
      keep: 3,
    });
  });

  it("names the key and the file of a wrong setting", async () => {
    const { loadConfig } = await import("../../src/config/load.js");
    const bad = (yaml: string) => {
      try {
        loadConfig(yaml, {}, "/srv/bot.config.yaml");
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    };
    expect(bad("record:\n  sanitize: false\n")).toMatch(/\/srv\/bot\.config\.yaml.*record\.path/);
    expect(bad("record:\n  path: c.jsonl\n  keep: -1\n")).toMatch(/record\.keep/);
    expect(bad("record:\n  path: c.jsonl\n  maxbytes: 10\n")).toMatch(/record\.maxbytes/);
    expect(bad("record:\n  path: c.jsonl\n  maxBytes: 10\n")).toMatch(/record\.maxBytes/);
  });
});
