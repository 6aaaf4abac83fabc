// Property tests of the webhook receiver over loopback: random requests get a clear 4xx or a result, never a crash.
import fc from "fast-check";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sign } from "../../src/webhooks/auth.js";
import { configRoute, webhookEntryConfig, type ChannelPost } from "../../src/webhooks/config.js";
import { createReceiver, type WebhookReceiver } from "../../src/webhooks/receiver.js";
import { captureLog, type CapturedLog } from "../helpers/log.js";

const TOKEN = "tok-prop-5b7d9f1e";
const SECRET = "whsec-prop-2c4e6a8b";
const MAX_BODY = 2048;

const ROUTES = {
  "/token": { type: "token", token: TOKEN },
  "/github": { type: "github", secret: SECRET },
  "/hmac": { type: "hmac", secret: SECRET, header: "x-sig", encoding: "base64", prefix: "v1=" },
  "/open": { type: "none" },
} as const;
type RoutePath = keyof typeof ROUTES;

/** How a random request authenticates: correctly, or one of the ways of getting it wrong. */
type Credential = "valid" | "none" | "wrong" | "garbage" | "other-body";

interface RandomRequest {
  path: string;
  method: string;
  contentType: string | undefined;
  body: Buffer;
  credential: Credential;
  garbage: string;
  extraHeaders: Record<string, string>;
  query: string;
}

const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map(String.fromCharCode),
  maxLength: 40,
});
const jsonBody = fc
  .oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({ status: fc.string(), branch: fc.string() }),
    fc.record({ status: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
  )
  .map((v) => Buffer.from(JSON.stringify(v) ?? "null"));
const body = fc.oneof(
  jsonBody,
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
  fc.integer({ min: MAX_BODY - 10, max: MAX_BODY + 200 }).map((n) => Buffer.alloc(n, "{")),
);
const request: fc.Arbitrary<RandomRequest> = fc.record({
  path: fc.oneof(
    fc.constantFrom(...(Object.keys(ROUTES) as RoutePath[])),
    fc.constantFrom("/", "/healthz", "/metrics", "/token/", "/TOKEN", "/%zz", "/a/../token"),
    headerText
      .filter((p) => !p.includes("#") && !p.includes("?"))
      .map((p) => `/${p.replace(/ /g, "")}`),
  ),
  method: fc.constantFrom("POST", "POST", "POST", "GET", "PUT", "DELETE", "PATCH", "OPTIONS"),
  contentType: fc.option(
    fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/vnd.github+json",
      "APPLICATION/JSON",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
    ),
    { nil: undefined },
  ),
  body,
  credential: fc.constantFrom<Credential>(
    "valid",
    "valid",
    "none",
    "wrong",
    "garbage",
    "other-body",
  ),
  garbage: headerText,
  extraHeaders: fc.dictionary(
    fc.constantFrom("x-webhook-token", "x-hub-signature-256", "x-sig", "x-github-event", "x-other"),
    headerText,
    { maxKeys: 2 },
  ),
  query: fc.oneof(
    fc.constant(""),
    headerText.map((q) => `?${encodeURIComponent(q)}`),
    fc.constant(`?token=${TOKEN}`),
    fc.constant("?token=wrong"),
  ),
});

/** The route a path reaches once the URL is normalised (`/a/../token` is `/token`). */
function routeOf(path: string): (typeof ROUTES)[RoutePath] | undefined {
  if (!URL.canParse(path, "http://receiver")) return undefined;
  return ROUTES[new URL(path, "http://receiver").pathname as RoutePath];
}

/** The headers (and query) the request authenticates with. */
function credentials(r: RandomRequest): { headers: Record<string, string>; query: string } {
  const auth = routeOf(r.path);
  const headers: Record<string, string> = { ...r.extraHeaders };
  let { query } = r;
  if (!auth || auth.type === "none" || r.credential === "none") return { headers, query };
  const signed = r.credential === "other-body" ? Buffer.concat([r.body, Buffer.from(" ")]) : r.body;
  if (auth.type === "token") {
    const value =
      r.credential === "valid" ? TOKEN : r.credential === "wrong" ? `${TOKEN}x` : r.garbage;
    if (r.credential === "valid" || r.credential === "wrong") query = "";
    headers["x-webhook-token"] = value;
  } else if (auth.type === "github") {
    headers["x-hub-signature-256"] =
      r.credential === "garbage"
        ? r.garbage
        : `sha256=${sign(signed, r.credential === "wrong" ? `${SECRET}x` : SECRET)}`;
  } else {
    headers["x-sig"] =
      r.credential === "garbage"
        ? r.garbage
        : `v1=${sign(signed, r.credential === "wrong" ? `${SECRET}x` : SECRET, "base64")}`;
  }
  return { headers, query };
}

function isJsonType(type: string | undefined): boolean {
  const t = (type ?? "").split(";")[0]!.trim().toLowerCase();
  return t === "application/json" || /^application\/[\w.+-]+\+json$/.test(t);
}

describe("webhook receiver on random requests", () => {
  let receiver: WebhookReceiver;
  let pool: Pool;
  let log: CapturedLog;
  const posts: ChannelPost[] = [];

  beforeAll(async () => {
    log = captureLog();
    receiver = createReceiver({ logger: log.logger, maxBodyBytes: MAX_BODY });
    for (const [path, auth] of Object.entries(ROUTES)) {
      const entry = webhookEntryConfig.parse({
        path,
        auth,
        channel: "ci",
        topic: "builds",
        template: "Build **{{ payload.status }}**",
      });
      receiver.mount(
        configRoute(entry, async (post) => {
          posts.push(post);
        }),
      );
    }
    const { url } = await receiver.listen();
    pool = new Pool(url, { connections: 4 });
  });

  afterAll(async () => {
    await pool.close();
    await receiver.close();
  });

  it("found by the property below: a target that is no URL path gets 400, not 500", async () => {
    for (const path of ["/\\", "//"]) {
      const res = await pool.request({ path, method: "POST", body: "{}" });
      expect(res.statusCode).toBe(400);
      expect(await res.body.json()).toEqual({ error: "malformed request path" });
    }
    expect(posts).toEqual([]);
  });

  it("answers 200 with a post, or a 4xx with an error and nothing posted", async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const { headers, query } = credentials(r);
        if (r.contentType !== undefined) headers["content-type"] = r.contentType;
        const before = posts.length;
        const res = await pool.request({
          path: `${r.path}${query}`,
          method: r.method as "POST",
          headers,
          body: r.method === "GET" ? undefined : r.body,
        });
        const text = await res.body.text();
        const status = res.statusCode;
        const posted = posts.length - before;
        expect(status, text).not.toBeGreaterThanOrEqual(500);
        expect(() => JSON.parse(text) as unknown, text).not.toThrow();

        const route = routeOf(r.path);
        if (status >= 400) {
          expect(status).toBeLessThan(500);
          expect(typeof (JSON.parse(text) as { error?: unknown }).error).toBe("string");
          expect(posted).toBe(0);
        }
        if (!route) {
          if (!URL.canParse(r.path, "http://receiver")) expect(status).toBe(400);
          else if (r.path !== "/healthz") expect(status).toBe(404);
          return;
        }
        // What the receiver must answer, step by step, as it checks the request.
        let payload: unknown;
        try {
          payload = JSON.parse(r.body.toString("utf8"));
        } catch {
          payload = undefined;
        }
        // A token route reads the header when it holds something, else `?token=`.
        const headerToken = headers["x-webhook-token"]?.trim();
        const authOk =
          route.type === "none" ||
          r.credential === "valid" ||
          (route.type === "token" &&
            (headerToken ? headerToken === TOKEN : query === `?token=${TOKEN}`));
        // A missing or malformed credential is refused before the body is read (so before 413).
        const signature = (name: string, form: RegExp) => form.test(headers[name]?.trim() ?? "");
        const earlyOk =
          route.type === "github"
            ? signature("x-hub-signature-256", /^sha256=[0-9a-fA-F]{64}$/)
            : route.type === "hmac"
              ? signature("x-sig", /^v1=[A-Za-z0-9+/]{43}=$/)
              : authOk;
        const expected =
          r.method !== "POST"
            ? 405
            : !isJsonType(r.contentType)
              ? 415
              : !earlyOk
                ? 401
                : r.body.length > MAX_BODY
                  ? 413
                  : !authOk
                    ? 401
                    : payload === undefined
                      ? 400
                      : typeof payload === "object" && payload !== null && "status" in payload
                        ? 200
                        : 422;
        expect(status, text).toBe(expected);
        expect(posted).toBe(status === 200 ? 1 : 0);
      }),
      { numRuns: 300 },
    );
    // The log said why each rejected request was refused, and never printed a secret.
    expect(log.text()).not.toContain(SECRET);
    expect(log.text()).not.toContain(TOKEN);
  });
});
