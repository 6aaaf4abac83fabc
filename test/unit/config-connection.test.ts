// server.proxy, server.tls and the Python client's zuliprc TLS names, read into what the client takes.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { noProxyMatches, proxyFor } from "../../src/client/connection.js";
import { apiRoot } from "../../src/client/transport.js";

const CERT = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const KEY = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";

function files(map: Record<string, string>) {
  return (path: string): string => {
    const found = map[path];
    if (found === undefined) throw Object.assign(new Error("missing"), { code: "ENOENT" });
    return found;
  };
}

describe("server.tls and zuliprc TLS names", () => {
  it("reads server.tls files relative to the config file", () => {
    const config = loadConfig(
      "server:\n  site: https://chat.example.com/api\n  email: b@x\n  apiKey: k\n  proxy: http://proxy:3128\n  tls:\n    ca: ca.pem\n    cert: c.pem\n    key: c.key\n",
      {},
      "/etc/bot/bot.config.yaml",
      {
        readFile: files({ "/etc/bot/ca.pem": CERT, "/etc/bot/c.pem": CERT, "/etc/bot/c.key": KEY }),
      },
    );
    expect(config.server?.site).toBe("https://chat.example.com");
    expect(config.server?.proxy).toBe("http://proxy:3128");
    expect(config.server?.tls).toMatchObject({ ca: CERT, cert: CERT, key: KEY });
  });

  it("reads cert_bundle, insecure, client_cert and client_cert_key from a zuliprc", () => {
    const rc =
      "[api]\nemail=b@x\nkey=k\nsite=chat.example.com\ncert_bundle=/pki/ca.pem\ninsecure=False\nclient_cert=both.pem\n";
    const config = loadConfig("server:\n  zuliprc: zuliprc\n", {}, "/srv/bot/bot.config.yaml", {
      readFile: files({
        "/srv/bot/zuliprc": rc,
        "/pki/ca.pem": CERT,
        "/srv/bot/both.pem": CERT + KEY,
      }),
    });
    expect(config.server?.tls).toMatchObject({
      ca: CERT,
      insecure: false,
      cert: CERT + KEY,
      key: CERT + KEY,
    });
  });

  it("names the key and file at fault", () => {
    const load =
      (yaml: string, map: Record<string, string> = {}) =>
      () =>
        loadConfig(yaml, {}, "/b/bot.config.yaml", { readFile: files(map) });
    expect(
      load("server:\n  zuliprc: rc\n", {
        "/b/rc": "[api]\nemail=e\nkey=k\nsite=s\ninsecure=yes\n",
      }),
    ).toThrow(/\/b\/rc: api\.insecure.*must be true or false/);
    expect(
      load("server:\n  site: https://x\n  email: e\n  apiKey: k\n  tls: { ca: nope.pem }\n"),
    ).toThrow(/server\.tls\.ca.*\/b\/nope\.pem not found/);
    expect(
      load("server:\n  site: https://x\n  email: e\n  apiKey: k\n  tls: { ca: ca.pem }\n", {
        "/b/ca.pem": "hello",
      }),
    ).toThrow(/server\.tls\.ca.*not a PEM certificate/);
    expect(
      load("server:\n  site: https://x\n  email: e\n  apiKey: k\n  tls: { cert: c.pem }\n", {
        "/b/c.pem": CERT,
      }),
    ).toThrow(/server\.tls\.key.*holds no private key/);
    expect(load("server:\n  site: https://x\n  email: e\n  apiKey: k\n  proxy: 3128\n")).toThrow(
      /server\.proxy/,
    );
  });
});

describe("proxy choice", () => {
  const url = (s: string) => new URL(s);
  it("takes the proxy of the site's scheme, lower case first, and NO_PROXY exempts", () => {
    expect(
      proxyFor("https://chat.example.com", {
        env: { HTTPS_PROXY: "http://a:1", https_proxy: "http://b:1" },
      }),
    ).toBe("http://b:1");
    expect(
      proxyFor("https://chat.example.com", { env: { HTTP_PROXY: "http://a:1" } }),
    ).toBeUndefined();
    expect(proxyFor("http://chat.example.com", { env: { HTTP_PROXY: "proxy:3128" } })).toBe(
      "http://proxy:3128",
    );
    expect(
      proxyFor("https://chat.example.com", {
        env: { HTTPS_PROXY: "http://a:1", NO_PROXY: ".example.com" },
      }),
    ).toBeUndefined();
    expect(
      proxyFor("https://chat.example.com", {
        proxy: "http://c:1",
        env: { HTTPS_PROXY: "http://a:1" },
      }),
    ).toBe("http://c:1");
    expect(
      proxyFor("https://chat.example.com", { proxy: false, env: { HTTPS_PROXY: "http://a:1" } }),
    ).toBeUndefined();
  });
  it("matches NO_PROXY entries as curl does", () => {
    expect(noProxyMatches("example.com", url("https://chat.example.com"))).toBe(true);
    expect(noProxyMatches("*.example.com", url("https://chat.example.com"))).toBe(true);
    expect(noProxyMatches("ample.com", url("https://chat.example.com"))).toBe(false);
    expect(noProxyMatches("chat.example.com:8443", url("https://chat.example.com"))).toBe(false);
    expect(noProxyMatches("chat.example.com:443", url("https://chat.example.com"))).toBe(true);
    expect(noProxyMatches("[::1]", url("http://[::1]:9000"))).toBe(true);
    expect(noProxyMatches("", url("http://x"))).toBe(false);
  });
  it("an API root from a site with /api or /api/v1", () => {
    expect(apiRoot("https://x/api")).toBe("https://x/api/v1");
    expect(apiRoot("https://x/api/v1/")).toBe("https://x/api/v1");
    expect(apiRoot("https://x/zulip")).toBe("https://x/zulip/api/v1");
  });
});
