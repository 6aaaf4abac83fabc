// bot check, bot send and bot start through a real egress proxy (tinyproxy) to a real nginx with a private CA
// that requires a client certificate, configured as the docs say (a zuliprc with the Python client's names).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import {
  bin,
  cleanEnv,
  killIfRunning,
  pingAndAwaitAnswer,
  runBot,
  watch,
} from "../helpers/process.js";
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
let dir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  sandbox = await startSandbox({ heartbeatSeconds: 1 });
  proxy = await startTinyproxy();
  pki = await makePki();
  nginx = await startNginx(pki, sandbox.url);
  dir = await mkdtemp(join(tmpdir(), "topicbot-behind-proxy-"));
}, 60_000);

afterAll(async () => {
  await killIfRunning(child);
  await nginx?.close();
  await proxy?.close();
  await pki?.close();
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A config whose server is a zuliprc with `lines` after email, key and site. */
async function project(name: string, lines: string[]): Promise<string> {
  const rc = join(dir, `${name}.zuliprc`);
  await writeFile(
    rc,
    [
      "[api]",
      `email=${sandbox.bot.email}`,
      `key=${sandbox.bot.apiKey}`,
      `site=${nginx.clientCertSite}`,
      ...lines,
      "",
    ].join("\n"),
  );
  await chmod(rc, 0o600);
  const config = join(dir, `${name}.yaml`);
  await writeFile(
    config,
    `server:\n  zuliprc: ${name}.zuliprc\nchannels: [general]\nplugins: [ping]\n`,
  );
  return config;
}

const full = () => [
  `cert_bundle=${pki.ca}`,
  `client_cert=${pki.clientCert}`,
  `client_cert_key=${pki.clientKey}`,
];
const env = () => ({ ...cleanEnv(), NODE_OPTIONS: "", HTTPS_PROXY: proxy.url, NO_PROXY: "" });

describe("with the documented settings", () => {
  it("bot check says All good, through the proxy", async () => {
    const before = await proxy.requests();
    const result = await runBot(["check", "-c", await project("good", full())], {
      env: env(),
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("All good.");
    expect(await proxy.requests()).toBeGreaterThan(before);
    expect(await proxy.log()).toContain(`CONNECT 127.0.0.1:${new URL(nginx.clientCertSite).port}`);
    expect(result.stdout + result.stderr).not.toContain(sandbox.bot.apiKey);
  }, 90_000);

  it("bot send posts, exit 0", async () => {
    const config = await project("good", full());
    const result = await runBot(
      ["send", "-c", config, "--to", "general", "--topic", "deploy", "sent through the proxy"],
      {
        env: env(),
        timeoutMs: 60_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(sandbox.realm.messages.some((m) => m.content === "sent through the proxy")).toBe(true);
  }, 90_000);

  it("bot start answers and stops cleanly", async () => {
    const config = await project("good", full());
    child = spawn(process.execPath, [bin, "start", "-c", config], {
      env: env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    await stdout.waitFor(/"msg":"ready"/, 60_000).catch((e: Error) => {
      throw new Error(`${e.message}\nstderr:\n${stderr.text}`);
    });
    expect(await pingAndAwaitAnswer(sandbox, "behind the proxy")).toBe("pong");
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect(((await exited) as [number])[0]).toBe(0);
    expect(stdout.text).not.toContain(sandbox.bot.apiKey);
  }, 90_000);
});

describe("without them, clear errors and no endless retry", () => {
  it("no CA: check, send and start exit 2 naming the setting", async () => {
    const config = await project("no-ca", full().slice(1));
    const check = await runBot(["check", "-c", config], { env: env(), timeoutMs: 60_000 });
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(
      /certificate authority this machine does not trust.*server\.tls\.ca.*cert_bundle/,
    );
    const send = await runBot(["send", "-c", config, "--to", "general", "--topic", "t", "x"], {
      env: env(),
      timeoutMs: 60_000,
    });
    expect(send.code).toBe(2);
    expect(send.stderr).toContain("cert_bundle");
    // Bounded: an endless retry would not exit within the timeout.
    const start = await runBot(["start", "-c", config], { env: env(), timeoutMs: 60_000 });
    expect(start.code).toBe(2);
    expect(start.stderr).toContain("cert_bundle");
    expect(start.stderr).not.toContain("retrying in");
  }, 200_000);

  it("no client certificate: exit 2 saying the server wants one and where to give it", async () => {
    const config = await project("no-cert", full().slice(0, 1));
    const check = await runBot(["check", "-c", config], { env: env(), timeoutMs: 60_000 });
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(
      /requires a client certificate and none was sent.*client_cert= and client_cert_key=/,
    );
    expect(check.stderr).not.toContain("not JSON");
  }, 90_000);

  it("a zuliprc other users can read is warned about", async () => {
    const config = await project("good", full());
    await chmod(join(dir, "good.zuliprc"), 0o644);
    const check = await runBot(["check", "-c", config], { env: env(), timeoutMs: 60_000 });
    expect(check.code).toBe(0);
    expect(check.stderr).toMatch(
      /warning: .*good\.zuliprc holds the bot's API key and is readable by other users \(mode 0644\): chmod 600/,
    );
  }, 90_000);
});
