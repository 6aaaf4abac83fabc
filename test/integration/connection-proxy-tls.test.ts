// Proxies and TLS for real: the client through tinyproxy (forwarding and CONNECT), and through nginx with a private CA.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { createClient, CertificateError, downloadUpload, type CallEvent } from "topicbot/client";
import {
  makePki,
  startNginx,
  startTinyproxy,
  type TestNginx,
  type TestPki,
  type TestProxy,
} from "../helpers/network-components.js";

let sandbox: Sandbox;
let proxy: TestProxy;
let pki: TestPki;
let nginx: TestNginx;

beforeAll(async () => {
  sandbox = await startSandbox({ heartbeatSeconds: 2 });
  proxy = await startTinyproxy();
  pki = await makePki();
  nginx = await startNginx(pki, sandbox.url);
}, 60_000);

afterAll(async () => {
  await nginx?.close();
  await proxy?.close();
  await pki?.close();
  await sandbox?.close();
});

const bot = () => ({ email: sandbox.bot.email, apiKey: sandbox.bot.apiKey });

describe("through a proxy", () => {
  it("sends every request, the long poll included, through server.proxy (a CONNECT tunnel)", async () => {
    const before = await proxy.requests();
    const client = createClient({ site: sandbox.url, ...bot(), proxy: proxy.url, env: {} });
    try {
      const reg = await client.events.register({ event_types: ["message"] });
      // A long poll held open while another request runs: two connections, both tunnels.
      const poll = client.events.get({ queue_id: reg.queue_id!, last_event_id: -1 });
      await client.users.me();
      expect((await poll).events[0]?.type).toBe("heartbeat");
    } finally {
      await client.close();
    }
    expect(await proxy.log()).toContain(`CONNECT 127.0.0.1:${new URL(sandbox.url).port}`);
    expect(await proxy.requests()).toBeGreaterThanOrEqual(before + 2);
  }, 30_000);

  it("honours HTTP_PROXY and http_proxy from the environment, and NO_PROXY exempts a host", async () => {
    for (const name of ["HTTP_PROXY", "http_proxy"]) {
      const before = await proxy.requests();
      const client = createClient({ site: sandbox.url, ...bot(), env: { [name]: proxy.url } });
      await client.users.me().finally(() => client.close());
      expect(await proxy.requests(), name).toBeGreaterThan(before);
    }
    for (const noProxy of [
      "127.0.0.1",
      "localhost,127.0.0.1",
      "*",
      `127.0.0.1:${new URL(sandbox.url).port}`,
    ]) {
      const before = await proxy.requests();
      const client = createClient({
        site: sandbox.url,
        ...bot(),
        env: { HTTP_PROXY: proxy.url, NO_PROXY: noProxy },
      });
      await client.users.me().finally(() => client.close());
      expect(await proxy.requests(), `NO_PROXY=${noProxy}`).toBe(before);
    }
    // proxy: false wins over the environment.
    const before = await proxy.requests();
    const direct = createClient({
      site: sandbox.url,
      ...bot(),
      proxy: false,
      env: { HTTP_PROXY: proxy.url },
    });
    await direct.users.me().finally(() => direct.close());
    expect(await proxy.requests()).toBe(before);
  }, 30_000);

  it("tunnels an https site through HTTPS_PROXY (CONNECT) with the private CA", async () => {
    const before = await proxy.requests();
    const client = createClient({
      site: nginx.site,
      ...bot(),
      tls: { ca: await readFile(pki.ca) },
      env: { HTTPS_PROXY: proxy.url },
    });
    try {
      const reg = await client.events.register({ event_types: ["message"] });
      const poll = await client.events.get({ queue_id: reg.queue_id!, last_event_id: -1 });
      expect(poll.events[0]?.type).toBe("heartbeat");
    } finally {
      await client.close();
    }
    expect(await proxy.log()).toMatch(/CONNECT 127\.0\.0\.1:\d+/);
    expect(await proxy.requests()).toBeGreaterThan(before);
  }, 30_000);

  it("names the proxy when it cannot be reached", async () => {
    const client = createClient({
      site: sandbox.url,
      ...bot(),
      proxy: "http://user:hunter22@127.0.0.1:1",
      retry: { maxAttempts: 1 },
      env: {},
    });
    const error = await client.users.me().catch((e: unknown) => e as Error);
    await client.close();
    expect(error.message).toContain("through proxy http://user:redacted@127.0.0.1:1");
    expect(error.message).not.toContain("hunter22");
  }, 30_000);
});

describe("a proxy that wants credentials", () => {
  it("says so without them, and works with them in its URL (never shown)", async () => {
    const guarded = await startTinyproxy({ basicAuth: ["bot", "s3cret-pw"] });
    try {
      const without = createClient({
        site: sandbox.url,
        ...bot(),
        proxy: guarded.url,
        retry: { maxAttempts: 1 },
        env: {},
      });
      const error = await without.users.me().catch((e: unknown) => e as Error);
      await without.close();
      expect(error.message).toMatch(/the proxy wants credentials \(HTTP 407\)/);
      const url = new URL(guarded.url);
      url.username = "bot";
      url.password = "s3cret-pw";
      const withCredentials = createClient({
        site: sandbox.url,
        ...bot(),
        env: { HTTP_PROXY: url.toString() },
      });
      const me = await withCredentials.users.me().finally(() => withCredentials.close());
      expect(me.email).toBe(sandbox.bot.email);
    } finally {
      await guarded.close();
    }
  }, 30_000);
});

describe("through nginx with a private CA", () => {
  it("an unknown CA is a CertificateError naming the fix, tried once only", async () => {
    const calls: CallEvent[] = [];
    const client = createClient({
      site: nginx.site,
      ...bot(),
      env: {},
      onCall: (e) => calls.push(e),
    });
    const error = await client.users.me().catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(CertificateError);
    expect((error as Error).message).toMatch(/certificate authority this machine does not trust/);
    expect((error as Error).message).toContain("server.tls.ca");
    expect((error as Error).message).toContain("cert_bundle");
    expect(calls.filter((c) => c.type === "response")).toHaveLength(1);
  }, 30_000);

  // The upload's second request (its temporary URL) went out through undici's global dispatcher,
  // which has neither the CA nor the proxy: it failed on a certificate the client itself trusts.
  it("downloads an upload through the same connection, both requests: the private CA applies to the bytes too", async () => {
    const ca = await readFile(pki.ca, "utf8");
    const client = createClient({ site: nginx.site, ...bot(), env: {}, tls: { ca } });
    try {
      const { url } = await client.uploads.upload({
        file: Buffer.from("behind nginx"),
        filename: "ca.txt",
      });
      const file = await downloadUpload(client, url);
      expect(file.data.toString()).toBe("behind nginx");
    } finally {
      await client.close();
    }
  }, 30_000);

  it("works with tls.ca, and with tls.insecure", async () => {
    for (const tls of [{ ca: await readFile(pki.ca, "utf8") }, { insecure: true }]) {
      const client = createClient({ site: nginx.site, ...bot(), env: {}, tls });
      const me = await client.users.me().finally(() => client.close());
      expect(me.email).toBe(sandbox.bot.email);
    }
  }, 30_000);

  it("a server requiring a client certificate: none, a stranger's, then the right one", async () => {
    const ca = await readFile(pki.ca, "utf8");
    const none = createClient({ site: nginx.clientCertSite, ...bot(), env: {}, tls: { ca } });
    const refused = await none.users.me().catch((e: unknown) => e);
    await none.close();
    expect(refused).toBeInstanceOf(CertificateError);
    expect((refused as Error).message).toMatch(/requires a client certificate and none was sent/);
    expect((refused as Error).message).toContain("client_cert");

    const stranger = createClient({
      site: nginx.clientCertSite,
      ...bot(),
      env: {},
      tls: { ca, cert: await readFile(pki.strangerCert), key: await readFile(pki.strangerKey) },
    });
    const wrong = await stranger.users.me().catch((e: unknown) => e);
    await stranger.close();
    expect(wrong).toBeInstanceOf(CertificateError);
    expect((wrong as Error).message).toMatch(/refused the client certificate/);

    const right = createClient({
      site: nginx.clientCertSite,
      ...bot(),
      env: {},
      tls: { ca, cert: await readFile(pki.clientCert), key: await readFile(pki.clientKey) },
    });
    const me = await right.users.me().finally(() => right.close());
    expect(me.email).toBe(sandbox.bot.email);
  }, 30_000);
});
