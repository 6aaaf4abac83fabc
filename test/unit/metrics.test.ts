import { describe, expect, it } from "vitest";
import { createBotMetrics } from "../../src/metrics/bot.js";
import { MetricsRegistry } from "../../src/metrics/registry.js";
import { parsePrometheus } from "../helpers/prometheus.js";

describe("MetricsRegistry", () => {
  it("writes counters with labels, escaping label values and help text", async () => {
    const registry = new MetricsRegistry();
    const c = registry.counter({
      name: "calls_total",
      help: 'API calls\nby "endpoint" \\ status',
      labels: ["endpoint", "status"],
    });
    c.inc({ endpoint: 'POST /messages "x"\\y\nz', status: 200 });
    c.inc({ endpoint: "GET /events", status: 200 }, 2);
    c.inc({ endpoint: "GET /events", status: 200 });
    expect(await registry.expose()).toBe(
      [
        '# HELP calls_total API calls\\nby "endpoint" \\\\ status',
        "# TYPE calls_total counter",
        'calls_total{endpoint="POST /messages \\"x\\"\\\\y\\nz",status="200"} 1',
        'calls_total{endpoint="GET /events",status="200"} 3',
        "",
      ].join("\n"),
    );
    const family = parsePrometheus(await registry.expose()).get("calls_total")!;
    expect(family.samples[0]!.labels.endpoint).toBe('POST /messages "x"\\y\nz');
  });

  it("counts an incrementer's calls once each, read at exposition beside inc()", async () => {
    const registry = new MetricsRegistry();
    const c = registry.counter({ name: "events_total", help: "events", labels: ["type"] });
    const plain = registry.counter({ name: "ticks_total", help: "ticks" });
    const messages = c.incrementer({ type: "message" });
    const tick = plain.incrementer();
    expect(await registry.expose()).toContain('events_total{type="message"} 0');
    messages();
    messages();
    c.inc({ type: "message" }, 3);
    tick();
    const first = parsePrometheus(await registry.expose());
    expect(first.get("events_total")!.samples[0]!.value).toBe(5);
    expect(first.get("ticks_total")!.samples[0]!.value).toBe(1);
    // Read again with nothing new: nothing counted twice.
    messages();
    const second = parsePrometheus(await registry.expose());
    expect(second.get("events_total")!.samples[0]!.value).toBe(6);
    expect(second.get("ticks_total")!.samples[0]!.value).toBe(1);
  });

  it("writes a histogram with cumulative buckets, +Inf, sum and count", async () => {
    const registry = new MetricsRegistry();
    const h = registry.histogram({
      name: "latency_seconds",
      help: "Latency.",
      buckets: [0.1, 1, 0.5],
    });
    for (const v of [0.05, 0.3, 0.3, 0.7, 4]) h.observe(v);
    expect(await registry.expose()).toBe(
      [
        "# HELP latency_seconds Latency.",
        "# TYPE latency_seconds histogram",
        'latency_seconds_bucket{le="0.1"} 1',
        'latency_seconds_bucket{le="0.5"} 3',
        'latency_seconds_bucket{le="1"} 4',
        'latency_seconds_bucket{le="+Inf"} 5',
        "latency_seconds_sum 5.35",
        "latency_seconds_count 5",
        "",
      ].join("\n"),
    );
  });

  it("shows an unlabelled metric at zero before any observation", async () => {
    const registry = new MetricsRegistry();
    registry.counter({ name: "a_total", help: "A." });
    registry.histogram({ name: "b_seconds", help: "B.", buckets: [1] });
    const families = parsePrometheus(await registry.expose());
    expect(families.get("a_total")!.samples).toEqual([{ name: "a_total", labels: {}, value: 0 }]);
    expect(families.get("b_seconds")!.samples.map((s) => s.value)).toEqual([0, 0, 0, 0]);
  });

  it("rejects bad names, unknown or missing labels, negative increments and duplicates", () => {
    const registry = new MetricsRegistry();
    expect(() => registry.counter({ name: "bad-name", help: "" })).toThrow(/invalid metric name/);
    expect(() => registry.counter({ name: "x_total", help: "", labels: ["__x"] })).toThrow(
      /invalid label name "__x"/,
    );
    expect(() => registry.histogram({ name: "h", help: "", labels: ["le"] })).toThrow(/reserved/);
    const c = registry.counter({ name: "c_total", help: "", labels: ["a"] });
    expect(() => c.inc({ b: 1 } as never)).toThrow(/unknown label "b"/);
    expect(() => c.inc({} as never)).toThrow(/label "a" is missing/);
    expect(() => c.inc({ a: 1 }, -1)).toThrow(/cannot add -1/);
    expect(() => registry.counter({ name: "c_total", help: "" })).toThrow(/already registered/);
  });

  it("collects gauges at exposition time", async () => {
    const registry = new MetricsRegistry();
    let queue = 3;
    registry.gauge({ name: "queue_depth", help: "Depth.", collect: () => queue });
    expect(await registry.expose()).toContain("queue_depth 3\n");
    queue = 7;
    expect(await registry.expose()).toContain("queue_depth 7\n");
  });
});

describe("createBotMetrics", () => {
  it("exposes every standard metric, and the output parses as Prometheus text", async () => {
    const metrics = createBotMetrics(new MetricsRegistry(), { startedAt: 1_700_000_000_000 });
    metrics.eventReceived("message");
    metrics.eventReceived("message");
    metrics.eventReceived("heartbeat");
    metrics.eventHandled("message");
    metrics.eventFailed("message");
    metrics.replySent(0.042);
    metrics.replySent(1.7);
    metrics.apiCall("POST /messages", 200);
    metrics.apiCall("POST /messages", 429);
    metrics.apiCall("GET /events", "network");
    metrics.rateLimitWait("POST /messages", 1.5);
    metrics.webhookRequest("/hooks/github", 401);
    metrics.cronRun("standup", "skipped");

    const families = parsePrometheus(await metrics.registry.expose());
    const value = (name: string, labels: Record<string, string> = {}) =>
      [...families.values()]
        .flatMap((f) => f.samples)
        .find((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels))?.value;

    expect(value("process_start_time_seconds")).toBe(1_700_000_000);
    expect(value("topicbot_events_received_total", { type: "message" })).toBe(2);
    expect(value("topicbot_events_handled_total", { type: "message" })).toBe(1);
    expect(value("topicbot_events_failed_total", { type: "message" })).toBe(1);
    expect(value("topicbot_reply_latency_seconds_count")).toBe(2);
    expect(value("topicbot_reply_latency_seconds_bucket", { le: "0.05" })).toBe(1);
    expect(value("topicbot_reply_latency_seconds_bucket", { le: "+Inf" })).toBe(2);
    expect(value("topicbot_api_calls_total", { endpoint: "POST /messages", status: "429" })).toBe(
      1,
    );
    expect(value("topicbot_api_calls_total", { endpoint: "GET /events", status: "network" })).toBe(
      1,
    );
    expect(value("topicbot_rate_limit_waits_total", { endpoint: "POST /messages" })).toBe(1);
    expect(value("topicbot_rate_limit_wait_seconds_total", { endpoint: "POST /messages" })).toBe(
      1.5,
    );
    expect(
      value("topicbot_webhook_requests_total", { route: "/hooks/github", status: "401" }),
    ).toBe(1);
    expect(value("topicbot_cron_runs_total", { job: "standup", outcome: "skipped" })).toBe(1);
    expect(families.get("topicbot_reply_latency_seconds")!.type).toBe("histogram");
  });
});

describe("the test's Prometheus parser", () => {
  it("rejects what Prometheus would reject", () => {
    expect(() => parsePrometheus("x 1")).toThrow(/end with a newline/);
    expect(() => parsePrometheus("x 1\n")).toThrow(/no TYPE line/);
    expect(() => parsePrometheus('# TYPE x counter\nx{a="1} 1\n')).toThrow(/unterminated/);
    expect(() => parsePrometheus("# TYPE x counter\nx abc\n")).toThrow(/bad value/);
    expect(() => parsePrometheus("# TYPE x counter\nx 1\nx 2\n")).toThrow(/duplicate series/);
    expect(() =>
      parsePrometheus(
        '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
      ),
    ).toThrow(/not cumulative/);
    expect(() =>
      parsePrometheus('# TYPE a counter\na 1\n# TYPE b counter\nb 1\na{x="1"} 1\n'),
    ).toThrow(/not grouped/);
  });
});
