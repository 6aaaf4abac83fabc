import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { definePlugin } from "topicbot";
import { post, until } from "../helpers/reliability.js";

/** `!hang` never returns and ignores its signal; `!polite` returns once its signal aborts; `!echo` answers. */
function plugins(seen: { signals: AbortSignal[] }) {
  return [
    definePlugin({
      name: "hang",
      setup(bot) {
        bot.command("hang", { description: "Never returns" }, (ctx) => {
          seen.signals.push(ctx.signal);
          return new Promise<void>(() => undefined);
        });
        bot.command("polite", { description: "Heeds its signal", timeoutMs: 300 }, (ctx) => {
          const { signal } = ctx;
          return new Promise<void>((_resolve, reject) =>
            signal.addEventListener("abort", () => reject(signal.reason as Error)),
          );
        });
      },
    }),
    definePlugin({
      name: "echo",
      setup(bot) {
        bot.command("echo", { description: "Answers" }, (ctx) =>
          ctx.reply(`echo ${ctx.message.id}`),
        );
      },
    }),
  ];
}

describe("handler time limits", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("eight hung handlers (the default concurrency) are aborted at their limit: the bot answers other topics, /healthz says degraded and why", async () => {
    const seen = { signals: [] as AbortSignal[] };
    t = await createTestBot({
      plugins: plugins(seen),
      // The default concurrency, 8; the hang plugin's limit from the per-plugin setting.
      config: { handlers: { timeoutMs: 60_000, plugins: { hang: 1_000 } } },
      sandbox: { heartbeatSeconds: 0.2 },
    });
    const { sandbox } = t;
    for (let i = 0; i < 8; i++) post(sandbox, "!hang", { topic: `stuck ${i}` });
    await until(() => seen.signals.length === 8, "eight hung handlers", 10_000);
    // Every slot is held: the echo waits until the limits free them (old code: never answered).
    const echo = post(sandbox, "!echo", { topic: "other" });
    const replies = [];
    for (let i = 0; i < 9; i++) replies.push(await t.reply({ timeoutMs: 15_000 }));
    const texts = replies.map((r) => r.content);
    expect(texts).toContain(`echo ${echo}`);
    const told = texts.filter((c) =>
      c.startsWith("Sorry, `hang` took longer than its time limit (1 s)"),
    );
    expect(told).toHaveLength(8);
    expect(seen.signals.every((s) => s.aborted)).toBe(true);
    expect(String((seen.signals[0]!.reason as Error).name)).toBe("HandlerTimeoutError");
    // Logged with the plugin and the handler.
    expect(
      t
        .errors()
        .filter((l) => /plugin "hang": command hang ran past its time limit of 1 s/.test(l)),
    ).toHaveLength(8);

    // The eight still run (they ignore the signal): degraded, and why; counted in /metrics.
    const health = (await (await fetch(`${t.bot.webhookUrl}/healthz`)).json()) as {
      status: string;
      degraded?: string[];
      reasons?: Record<string, string>;
    };
    expect(health.status).toBe("degraded");
    expect(health.degraded).toContain("handlers");
    expect(health.reasons?.handlers).toMatch(
      /^8 handler\(s\) aborted for their time limit still running, ignoring ctx.signal \(plugin hang, command hang, message \d+/,
    );
    const metrics = await (await fetch(`${t.bot.webhookUrl}/metrics`)).text();
    expect(metrics).toContain('topicbot_handler_timeouts_total{plugin="hang"} 8');
    expect(metrics).toContain("topicbot_handlers_overrunning 8");

    // Later commands in the stuck topics are answered too: their slots are free.
    post(sandbox, "!echo", { topic: "stuck 0" });
    expect((await t.reply({ timeoutMs: 10_000 })).content).toMatch(/^echo \d+$/);
  }, 60_000);

  it("a handler's own limit wins, and one that heeds ctx.signal ends cleanly at it", async () => {
    const seen = { signals: [] as AbortSignal[] };
    t = await createTestBot({ plugins: plugins(seen), sandbox: { heartbeatSeconds: 0.2 } });
    await t.send("!polite");
    const reply = await t.reply({ timeoutMs: 10_000 });
    expect(reply.content).toBe(
      "Sorry, `polite` took longer than its time limit (300 ms) and was stopped. The error has been logged.",
    );
    const health = (await (await fetch(`${t.bot.webhookUrl}/healthz`)).json()) as {
      status: string;
    };
    expect(health.status).toBe("ok");
  }, 30_000);
});
