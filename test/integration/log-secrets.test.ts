import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createBot, definePlugin } from "topicbot";
import { createClient } from "topicbot/client";
import { startSandbox } from "topicbot/sandbox";
import { basicAuthSecret, createLogger, serverSecrets } from "../../src/log/logger.js";

/** A writable that keeps everything written to it. */
function capture() {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe("API keys never reach the logs", () => {
  it("through plugin logs, handler errors, API errors and network errors with request details", async () => {
    const sandbox = await startSandbox({ heartbeatSeconds: 10 });
    const server = { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey };
    const key = server.apiKey;
    const basic = basicAuthSecret(server.email, key);
    const out = capture();
    const log = createLogger({
      level: "trace",
      format: "json",
      destination: out.stream,
      secrets: serverSecrets(server),
    });

    let handled!: () => void;
    const done = new Promise<void>((resolve) => (handled = resolve));
    const leaky = definePlugin({
      name: "leaky",
      setup(bot) {
        bot.command("leak", { description: "logs secrets every way it can" }, async (ctx) => {
          bot.log.info({ server }, "connected with %s", key);
          bot.log.debug({ deep: { config: { server: { credentials: { apiKey: key } } } } }, "deep");
          bot.log.warn({ headers: { Authorization: `Basic ${basic}` } }, `sent Basic ${basic}`);
          // An API error from a request whose details carry the key.
          const ok = await ctx.api.messages
            .send({ type: "channel", to: `no-such-${key}`, topic: "t", content: key })
            .catch((error: unknown) => error);
          bot.log.error(
            { err: ok, request: { url: `${server.site}?api_key=${key}` } },
            "send failed",
          );
          // A network error: a client with the key talking to a closed port.
          const offline = createClient({
            ...server,
            site: "http://127.0.0.1:1",
            retry: { maxAttempts: 1 },
          });
          const network = await offline.users.me({}, { retry: false }).catch((e: unknown) => e);
          await offline.close();
          bot.log.error({ err: network, client: { options: server } }, "network failed");
          handled();
          // And a handler that throws with the key in its message and cause.
          throw new Error(`request to ${server.site} with key ${key} failed`, {
            cause: { apiKey: key, authorization: `Basic ${basic}` },
          });
        });
      },
    });

    const bot = createBot({ server, plugins: [leaky], logger: log, handleSignals: false });
    const human = createClient({
      site: sandbox.url,
      email: sandbox.user("mia").email,
      apiKey: sandbox.user("mia").apiKey,
    });
    try {
      await bot.start();
      await human.messages.send({ type: "channel", to: "general", topic: "t", content: "!leak" });
      await done;
      await expect
        .poll(() => out.text().includes('"plugin \\"leaky\\" failed handling message'), {
          timeout: 5_000,
        })
        .toBe(true);
    } finally {
      await bot.stop();
      await human.close();
      await sandbox.close();
    }

    const text = out.text();
    // The paths were really taken...
    expect(text).toContain("connected with [redacted]");
    expect(text).toContain("STREAM_DOES_NOT_EXIST");
    expect(text).toContain("request failed");
    expect(text).toContain("send failed");
    // ...and the key, in either form, is nowhere.
    expect(text).not.toContain(key);
    expect(text).not.toContain(basic);
  });

  it("scrubs pretty output too", () => {
    const out = capture();
    const log = createLogger({ format: "pretty", destination: out.stream, secrets: ["s3cretKEY"] });
    log.error({ err: new Error("boom s3cretKEY") }, "failed with s3cretKEY");
    expect(out.text()).toContain("failed with [redacted]");
    expect(out.text()).not.toContain("s3cretKEY");
  });
});
