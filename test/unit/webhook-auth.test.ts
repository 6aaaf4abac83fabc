import { describe, expect, it } from "vitest";
import {
  authenticate,
  authSecrets,
  safeEqual,
  sign,
  type RouteAuth,
} from "../../src/webhooks/auth.js";

const body = Buffer.from('{"action":"opened"}');
const input = (headers: Record<string, string> = {}, query = "") => ({
  rawBody: body,
  headers,
  query: new URLSearchParams(query),
});

describe("webhook authentication", () => {
  it("compares strings of any lengths in constant time", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("", "x")).toBe(false);
  });

  it("signs like openssl dgst -sha256 -hmac", () => {
    // printf 'hello' | openssl dgst -sha256 -hmac key
    expect(sign("hello", "key")).toBe(
      "9307b3b915efb5171ff14d8cb55fbcc798c6c0ef1456d66ded1a6aa723a58b7b",
    );
    expect(sign("hello", "key", "base64")).toBe("kwezuRXvtRcf8U2MtV+8x5jGwO8UVtZt7RpqpyOli3s=");
  });

  it("accepts GitHub's form and explains each refusal without the secret", () => {
    const auth: RouteAuth = { type: "github", secret: "topsecret" };
    const good = `sha256=${sign(body, "topsecret")}`;
    expect(authenticate(auth, input({ "x-hub-signature-256": good }))).toEqual({ ok: true });
    expect(
      authenticate(
        auth,
        input({ "x-hub-signature-256": good.toUpperCase().replace("SHA256=", "sha256=") }),
      ),
    ).toEqual({ ok: true });
    const refusals = [
      input(),
      input({ "x-hub-signature-256": sign(body, "topsecret") }),
      input({ "x-hub-signature-256": "sha256=not-hex" }),
      input({ "x-hub-signature-256": `sha256=${sign(body, "other")}` }),
      input({ "x-hub-signature-256": `sha256=${sign(body, "topsecret").slice(2)}` }),
      // An extra hex digit once passed: Buffer.from(hex) drops an odd last digit.
      input({ "x-hub-signature-256": `sha256=${sign(body, "topsecret")}0` }),
    ].map((i) => authenticate(auth, i));
    expect(refusals).toEqual([
      { ok: false, reason: "missing x-hub-signature-256 header" },
      { ok: false, reason: 'x-hub-signature-256 header does not start with "sha256="' },
      { ok: false, reason: "x-hub-signature-256 header is not an HMAC-SHA256 in hex" },
      { ok: false, reason: "x-hub-signature-256 signature does not match the body" },
      { ok: false, reason: "x-hub-signature-256 header is not an HMAC-SHA256 in hex" },
      { ok: false, reason: "x-hub-signature-256 header is not an HMAC-SHA256 in hex" },
    ]);
    expect(JSON.stringify(refusals)).not.toContain("topsecret");
  });

  it("reads a token only where the route says", () => {
    const query: RouteAuth = { type: "token", token: "t0ken-value", query: "key" };
    expect(authenticate(query, input({}, "key=t0ken-value"))).toEqual({ ok: true });
    expect(authenticate(query, input({ "x-webhook-token": "t0ken-value" }))).toEqual({
      ok: false,
      reason: "missing token (?key=)",
    });
  });

  it("prefers a non-empty header to the query, and treats an empty header as absent", () => {
    const both: RouteAuth = { type: "token", token: "t0ken-value" };
    // Found by the receiver property test: an empty header hid a correct `?token=`.
    expect(authenticate(both, input({ "x-webhook-token": "" }, "token=t0ken-value"))).toEqual({
      ok: true,
    });
    expect(authenticate(both, input({ "x-webhook-token": "  " }, "token=t0ken-value"))).toEqual({
      ok: true,
    });
    // Two credentials that disagree are refused, whichever one is right.
    expect(authenticate(both, input({ "x-webhook-token": "nope" }, "token=t0ken-value"))).toEqual({
      ok: false,
      reason: "wrong token (x-webhook-token header or ?token=)",
    });
  });

  it("lists the secrets of each auth kind, for redaction", () => {
    expect(authSecrets({ type: "none" })).toEqual([]);
    expect(authSecrets({ type: "token", token: "a" })).toEqual(["a"]);
    expect(authSecrets({ type: "hmac", secret: "b", header: "x-sig" })).toEqual(["b"]);
  });
});
