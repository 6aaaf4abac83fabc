import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createBotMetrics } from "../../src/metrics/bot.js";
import { PROMETHEUS_CONTENT_TYPE } from "../../src/metrics/registry.js";
import { sign } from "../../src/webhooks/auth.js";
import { configRoute, webhooksConfig, type ChannelPost } from "../../src/webhooks/config.js";
import {
  createReceiver,
  respond,
  WebhookError,
  type HealthReport,
  type WebhookReceiver,
  type WebhookRequest,
} from "../../src/webhooks/receiver.js";
import { captureLog, type CapturedLog } from "../helpers/log.js";
import { parsePrometheus } from "../helpers/prometheus.js";

const TOKEN = "tok-3f9a1c5e7b";
const SECRET = "whsec-8d2b4f6a0c";

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

describe("webhook receiver over loopback", () => {
  let receiver: WebhookReceiver;
  let url: string;
  let log: CapturedLog;
  const received: WebhookRequest[] = [];
  const posts: ChannelPost[] = [];
  let health: HealthReport | Error = { queueConnected: true, lastEventAt: 1_700_000_000_000 };
  const metrics = createBotMetrics();

  async function post(
    path: string,
    body: string,
    headers: Record<string, string> = {},
    method = "POST",
  ): Promise<Answer> {
    const res = await fetch(`${url}${path}`, {
      method,
      body: method === "GET" ? undefined : body,
      headers: { "content-type": "application/json", ...headers },
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  beforeAll(async () => {
    log = captureLog();
    receiver = createReceiver({
      logger: log.logger,
      metrics,
      health: () => {
        if (health instanceof Error) throw health;
        return health;
      },
    });
    const record = (r: WebhookRequest) => {
      received.push(r);
      return undefined;
    };
    receiver
      .route("/token", { auth: { type: "token", token: TOKEN } }, record)
      .route(
        "/token-header",
        { auth: { type: "token", token: TOKEN, header: "x-ci-token" } },
        record,
      )
      .route("/github", { auth: { type: "github", secret: SECRET } }, record)
      .route(
        "/signed",
        {
          auth: {
            type: "hmac",
            secret: SECRET,
            header: "x-signature",
            encoding: "base64",
            prefix: "v1=",
          },
        },
        record,
      )
      .route("/small", { auth: { type: "none" }, maxBodyBytes: 64 }, record)
      .route("/text", { auth: { type: "none" }, json: false }, (r) => ({ echoed: r.payload }))
      .route("/refuse", { auth: { type: "none" } }, () => {
        throw new WebhookError(409, "duplicate delivery");
      })
      .route("/crash", { auth: { type: "none" } }, () => {
        throw new Error(`handler exploded near ${SECRET.slice(0, 3)}`);
      })
      .route("/accepted", { auth: { type: "none" } }, () => respond(202, { queued: true }));
    const [entry] = webhooksConfig.parse([
      {
        path: "/hooks/ci",
        auth: { type: "token", token: TOKEN },
        channel: "ci",
        topic: "{{ payload.repo }}",
        template: "Build **{{ payload.build.status }}** on `{{ payload.branch }}`",
      },
    ]);
    receiver.mount(configRoute(entry!, async (p) => void posts.push(p)));
    ({ url } = await receiver.listen());
  });

  afterEach(() => {
    received.length = 0;
    posts.length = 0;
  });

  afterAll(async () => {
    await receiver.close();
    expect(log.text()).not.toContain(TOKEN);
    expect(log.text()).not.toContain(SECRET);
  });

  it("listens on loopback by default", () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(receiver.routes()).toContain("/hooks/ci");
  });

  it("accepts a shared token in the X-Webhook-Token header or the token query parameter", async () => {
    const a = await post("/token?x=1", '{"n":1}', { "x-webhook-token": TOKEN });
    expect(a).toMatchObject({ status: 200, body: { ok: true } });
    const b = await post(`/token?token=${TOKEN}`, '{"n":2}');
    expect(b.status).toBe(200);
    expect(received.map((r) => r.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(received[0]!.query.get("x")).toBe("1");
    expect(received[0]!.rawBody.toString()).toBe('{"n":1}');
    expect(received[0]!.path).toBe("/token");
  });

  it("answers 401 for a wrong or missing token, logs why, and calls nothing", async () => {
    const wrong = await post("/token", "{}", { "x-webhook-token": `${TOKEN}x` });
    const missing = await post("/token", "{}");
    const elsewhere = await post(`/token-header?token=${TOKEN}`, "{}");
    expect([wrong.status, missing.status, elsewhere.status]).toEqual([401, 401, 401]);
    expect(wrong.body).toEqual({ error: "authentication failed" });
    expect(received).toEqual([]);
    const lines = log.lines().filter((l) => l.msg === "webhook rejected: authentication failed");
    expect(lines.map((l) => l.reason)).toEqual(
      expect.arrayContaining([
        "wrong token (x-webhook-token header or ?token=)",
        "missing token (x-webhook-token header or ?token=)",
        "missing token (x-ci-token header)",
      ]),
    );
    expect(lines[0]).toMatchObject({ route: "/token", level: 40 });
    const ok = await post("/token-header", "{}", { "X-CI-Token": TOKEN });
    expect(ok.status).toBe(200);
  });

  it("checks GitHub's X-Hub-Signature-256 against the raw body", async () => {
    const body = '{"zen":"Keep it logically awesome.",  "hook_id": 1}';
    const good = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
    expect((await post("/github", body, { "x-hub-signature-256": good })).status).toBe(200);
    expect(received).toHaveLength(1);
    const reformatted = JSON.stringify(JSON.parse(body));
    const tampered = await post("/github", reformatted, { "x-hub-signature-256": good });
    const badHex = await post("/github", body, { "x-hub-signature-256": "sha256=zz" });
    const noPrefix = await post("/github", body, { "x-hub-signature-256": good.slice(7) });
    const none = await post("/github", body);
    expect([tampered, badHex, noPrefix, none].map((a) => a.status)).toEqual([401, 401, 401, 401]);
    expect(received).toHaveLength(1);
  });

  it("checks a generic HMAC header in base64 with a prefix", async () => {
    const body = '{"event":"deploy"}';
    const good = `v1=${sign(body, SECRET, "base64")}`;
    expect((await post("/signed", body, { "x-signature": good })).status).toBe(200);
    const hex = `v1=${sign(body, SECRET, "hex")}`;
    expect((await post("/signed", body, { "x-signature": hex })).status).toBe(401);
  });

  it("answers 404 for an unknown path and 405 for another method", async () => {
    expect(await post("/nope", "{}")).toMatchObject({
      status: 404,
      body: { error: "no webhook route at /nope" },
    });
    const get = await post("/token", "", {}, "GET");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("answers 415 when a JSON route gets another content type", async () => {
    const a = await post("/small", "a=1", { "content-type": "application/x-www-form-urlencoded" });
    expect(a).toMatchObject({ status: 415 });
    expect((a.body as { error: string }).error).toMatch(/\/small takes application\/json/);
    const vendor = await post("/small", "{}", {
      "content-type": "application/vnd.api+json; charset=utf-8",
    });
    expect(vendor.status).toBe(200);
  });

  it("answers 400 for malformed JSON", async () => {
    const a = await post("/small", '{"a":');
    expect(a.status).toBe(400);
    expect((a.body as { error: string }).error).toMatch(/^malformed JSON: /);
    expect(received).toEqual([]);
  });

  it("answers 413 for a body over the cap, declared or streamed", async () => {
    const big = JSON.stringify({ text: "x".repeat(100) });
    expect((await post("/small", big)).status).toBe(413);
    // Chunked, without Content-Length: the cap applies while reading.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${url}/small`,
        { method: "POST", headers: { "content-type": "application/json" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write(big.slice(0, 50));
      req.end(big.slice(50));
    });
    expect(status).toBe(413);
    expect(received).toEqual([]);
  });

  it("passes text bodies to routes that are not JSON", async () => {
    const a = await post("/text", "plain words", { "content-type": "text/plain" });
    expect(a).toMatchObject({ status: 200, body: { echoed: "plain words" } });
  });

  it("turns handler errors into answers: WebhookError as given, others 500 and logged", async () => {
    expect(await post("/refuse", "{}")).toMatchObject({
      status: 409,
      body: { error: "duplicate delivery" },
    });
    expect(await post("/crash", "{}")).toMatchObject({
      status: 500,
      body: { error: "internal error" },
    });
    expect(log.lines().find((l) => l.msg === "webhook handler failed")).toMatchObject({
      route: "/crash",
      level: 50,
    });
    expect(await post("/accepted", "{}")).toMatchObject({ status: 202, body: { queued: true } });
  });

  it("posts a config route's templated message", async () => {
    const body = JSON.stringify({ repo: "widgets", branch: "main", build: { status: "passed" } });
    const a = await post("/hooks/ci", body, { "x-webhook-token": TOKEN });
    expect(a.status).toBe(200);
    expect(posts).toEqual([{ to: "ci", topic: "widgets", content: "Build **passed** on `main`" }]);
  });

  it("answers 422 naming the route and the field when the payload lacks one, posting nothing", async () => {
    const body = JSON.stringify({ repo: "widgets", branch: "main", build: {} });
    const a = await post("/hooks/ci", body, { "x-webhook-token": TOKEN });
    expect(a.status).toBe(422);
    expect((a.body as { error: string }).error).toBe(
      'webhook route /hooks/ci: template field "payload.build.status" is missing (payload.build has no key "status")',
    );
    expect(posts).toEqual([]);
  });

  it("serves /healthz from the health function: 200 healthy, 503 not", async () => {
    health = { queueConnected: true, lastEventAt: 1_700_000_000_000 };
    const ok = await post("/healthz", "", {}, "GET");
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      status: "ok",
      queueConnected: true,
      lastEventAt: "2023-11-14T22:13:20.000Z",
    });
    expect(typeof (ok.body as { uptimeSeconds: number }).uptimeSeconds).toBe("number");
    health = { queueConnected: false, lastEventAt: null };
    expect(await post("/healthz", "", {}, "GET")).toMatchObject({
      status: 503,
      body: { status: "unhealthy", queueConnected: false, lastEventAt: null },
    });
    health = new Error("probe failed");
    expect((await post("/healthz", "", {}, "GET")).status).toBe(503);
    expect((await post("/healthz", "{}")).status).toBe(405);
    health = { queueConnected: true };
  });

  it("serves /metrics as Prometheus text, counting the receiver's own answers", async () => {
    await post("/nope", "{}");
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
    const families = parsePrometheus(await res.text());
    const requests = families.get("topicbot_webhook_requests_total")!.samples;
    expect(requests).toContainEqual({
      name: "topicbot_webhook_requests_total",
      labels: { route: "unmatched", status: "404" },
      value: expect.any(Number),
    });
    expect(
      requests.find((s) => s.labels.route === "/token" && s.labels.status === "401"),
    ).toBeTruthy();
  });
});

describe("route declarations", () => {
  it("refuse malformed, reserved and duplicate paths", () => {
    const receiver = createReceiver();
    const none = { auth: { type: "none" } } as const;
    expect(() => receiver.route("hooks", none, () => undefined)).toThrow(/starts with \//);
    expect(() => receiver.route("/a?b=1", none, () => undefined)).toThrow(/no query/);
    expect(() => receiver.route("/healthz", none, () => undefined)).toThrow(/reserved/);
    receiver.route("/a", none, () => undefined);
    expect(() => receiver.route("/a", none, () => undefined)).toThrow(/declared twice/);
  });

  it("without metrics, /metrics is an unknown path; without health, /healthz says ok", async () => {
    const receiver = createReceiver();
    const { url } = await receiver.listen();
    try {
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      const h = await fetch(`${url}/healthz`);
      expect(h.status).toBe(200);
      expect(await h.json()).toMatchObject({ status: "ok" });
    } finally {
      await receiver.close();
    }
  });
});

describe("webhooks config", () => {
  const base = { path: "/h", channel: "c", topic: "t", template: "x" };
  it("names the key of a bad entry", () => {
    const noAuth = webhooksConfig.safeParse([base]);
    expect(noAuth.error!.issues[0]!.path).toEqual([0, "auth"]);
    const shortSecret = webhooksConfig.safeParse([
      { ...base, auth: { type: "github", secret: "x" } },
    ]);
    expect(shortSecret.error!.issues[0]).toMatchObject({
      path: [0, "auth", "secret"],
      message: "a secret needs at least 8 characters",
    });
    const badTemplate = webhooksConfig.safeParse([
      { ...base, auth: { type: "none" }, template: "{{ payload.x" },
    ]);
    expect(badTemplate.error!.issues[0]!.path).toEqual([0, "template"]);
    expect(badTemplate.error!.issues[0]!.message).toMatch(/unclosed/);
    const dup = webhooksConfig.safeParse([
      { ...base, auth: { type: "none" } },
      { ...base, auth: { type: "none" } },
    ]);
    expect(dup.error!.issues[0]).toMatchObject({
      path: [1, "path"],
      message: "/h is declared twice",
    });
    const reserved = webhooksConfig.safeParse([
      { ...base, path: "/metrics", auth: { type: "none" } },
    ]);
    expect(reserved.error!.issues[0]!.message).toMatch(/reserved/);
  });
});
