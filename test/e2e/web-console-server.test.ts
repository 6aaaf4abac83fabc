import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { bin, cleanEnv, killIfRunning, watch } from "../helpers/process.js";

describe("bot dev --web --me on a configured server", () => {
  let server: Sandbox | undefined;
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await killIfRunning(child);
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("chats as the developer and still shows attribution, events and storage; the sandbox's controls say they are not there", async () => {
    // A sandbox started apart plays the real server: bot dev reaches it only over HTTP.
    server = await startSandbox();
    dir = await mkdtemp(join(tmpdir(), "topicbot-web-server-"));
    const { bot } = server;
    const mia = server.user("mia");
    await writeFile(
      join(dir, "bot.config.yaml"),
      `server:\n  site: ${server.url}\n  email: ${bot.email}\n  apiKey: ${bot.apiKey}\nplugins:\n  - ping\n  - ./listener.mjs\n`,
    );
    // `!listen` follows the topic (a plain-ESM plugin: the temp dir cannot import topicbot).
    await writeFile(
      join(dir, "listener.mjs"),
      `export default { name: "listener", setup(bot) {
        bot.command("listen", { description: "Follow this topic" }, async (ctx) => {
          await ctx.follow({ idleMinutes: 30 });
          await ctx.reply("listening");
        });
        bot.followed(() => undefined);
      } };\n`,
    );
    await writeFile(
      join(dir, "mia.zuliprc"),
      `[api]\nemail=${mia.email}\nkey=${mia.apiKey}\nsite=${server.url}\n`,
    );
    child = spawn(process.execPath, [bin, "dev", "--web", "--me", "mia.zuliprc", "--no-watch"], {
      cwd: dir,
      env: { ...cleanEnv(), NODE_OPTIONS: "", FORCE_COLOR: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out = watch(child.stdout!);
    const [url] = await out.waitFor(/http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/, 30_000);
    const { origin, search } = new URL(url);
    const token = new URLSearchParams(search).get("token")!;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${origin}${path}`, {
        method,
        headers: { "x-console-token": token, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };

    const state = (await api("GET", "/api/state")).json;
    expect(state).toMatchObject({ remote: true, speaker: { email: mia.email } });
    expect(state.clock).toBeUndefined();
    expect(JSON.stringify(state)).not.toContain(mia.apiKey);

    const place = { type: "channel", channel: "general", topic: "dev" };
    expect((await api("POST", "/api/send", { place, text: "!ping" })).status).toBe(200);
    expect((await api("POST", "/api/send", { place, text: "hi all" })).status).toBe(200);
    type Shown = { html: string; produced?: { label: string }; ignored?: { reason: string } };
    let messages: Shown[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      messages = (await api("GET", "/api/messages?channel=general&topic=dev")).json
        .messages as Shown[];
      if (
        messages.some((m) => m.html.includes("pong") && m.produced) &&
        messages.some((m) => m.ignored)
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(messages.find((m) => m.html.includes("pong"))?.produced?.label).toBe(
      "ping › command ping",
    );
    expect(messages.find((m) => m.html.includes("hi all"))?.ignored).toEqual({
      reason: "not-addressed",
    });

    const events = (await api("GET", "/api/events")).json.events as { event: { type: string } }[];
    expect(events.map((e) => e.event.type)).toContain("message");
    expect((await api("GET", "/api/inside")).json).toMatchObject({
      storage: [{ name: "ping" }, { name: "listener" }],
      follows: [],
    });
    // A follow shows in the console's storage panel, with the channel's name.
    expect((await api("POST", "/api/send", { place, text: "!listen" })).status).toBe(200);
    let follows: unknown[] = [];
    for (let i = 0; i < 100 && follows.length === 0; i++) {
      follows = (await api("GET", "/api/inside")).json.follows as unknown[];
      if (follows.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(follows).toEqual([
      {
        where: "#general > dev",
        plugin: "listener",
        idleMinutes: 30,
        lastActive: expect.any(Number),
      },
    ]);

    const fault = await api("POST", "/api/fault", { kind: "drop-polls" });
    expect(fault).toEqual({
      status: 409,
      json: { error: expect.stringMatching(/needs the embedded sandbox/) },
    });
    const as = await api("POST", "/api/as", { handle: "gus" });
    expect(as.status).toBe(400);
    expect(as.json.error).toMatch(/on a real server you speak only as yourself/);
  }, 60_000);
});
