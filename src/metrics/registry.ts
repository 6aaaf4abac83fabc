// A small metrics registry: counters, gauges and histograms with labels, in Prometheus text format.

/** The content type of `MetricsRegistry.expose()` output (Prometheus text exposition 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type LabelValues<L extends string> = Readonly<Record<L, string | number>>;

interface Definition<L extends string> {
  name: string;
  help: string;
  labels?: readonly L[];
}

/** Escapes a label value: backslash, double quote and newline. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** Escapes HELP text: backslash and newline. */
function escapeHelp(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function formatLabels(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return "";
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

abstract class Metric<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  abstract readonly type: "counter" | "gauge" | "histogram";
  /** Series by their label values, each followed by NUL (no label value holds one in practice). */
  protected readonly series = new Map<string, { labels: [string, string][]; value: unknown }>();

  constructor(def: Definition<L>) {
    if (!METRIC_NAME.test(def.name)) throw new Error(`invalid metric name "${def.name}"`);
    for (const label of def.labels ?? [])
      if (!LABEL_NAME.test(label) || label.startsWith("__"))
        throw new Error(`metric ${def.name}: invalid label name "${label}"`);
    this.name = def.name;
    this.help = def.help;
    this.labelNames = def.labels ?? [];
  }

  /**
   * The series for these label values, created with `init` on first use. An existing series is
   * found without allocating (this runs for every event); labels are fully checked on creation.
   */
  protected slot<V>(labels: LabelValues<L> | undefined, init: () => V): { value: V } {
    const given = (labels ?? {}) as Record<string, string | number | undefined>;
    let key = "";
    let complete = true;
    for (const l of this.labelNames) {
      const value = given[l];
      if (value === undefined) complete = false;
      key += `${value}\u0000`;
    }
    let givenCount = 0;
    for (const name in given) if (Object.hasOwn(given, name)) givenCount++;
    if (!complete || givenCount !== this.labelNames.length) this.#refuse(given);
    let found = this.series.get(key);
    if (!found) {
      const pairs = this.labelNames.map((l): [string, string] => [l, String(given[l])]);
      found = { labels: pairs, value: init() };
      this.series.set(key, found);
    }
    return found as { value: V };
  }

  /** Throws naming the first unknown label, else the first missing one. */
  #refuse(given: Record<string, unknown>): never {
    for (const name of Object.keys(given))
      if (!(this.labelNames as readonly string[]).includes(name))
        throw new Error(`metric ${this.name}: unknown label "${name}"`);
    const missing = this.labelNames.find((l) => given[l] === undefined);
    throw new Error(`metric ${this.name}: label "${missing}" is missing`);
  }

  /** The metric's lines, HELP and TYPE first. */
  lines(): string[] {
    const out = [
      `# HELP ${this.name} ${escapeHelp(this.help)}`,
      `# TYPE ${this.name} ${this.type}`,
    ];
    if (this.series.size === 0 && this.labelNames.length === 0) this.slot(undefined, () => 0);
    for (const s of this.series.values()) out.push(...this.samples(s.labels, s.value));
    return out;
  }

  protected abstract samples(labels: [string, string][], value: unknown): string[];
}

/** A count that only goes up. */
export class Counter<L extends string = never> extends Metric<L> {
  readonly type = "counter";

  inc(...args: [L] extends [never] ? [by?: number] : [labels: LabelValues<L>, by?: number]): void {
    const [labels, by] = (this.labelNames.length === 0 ? [undefined, args[0]] : args) as [
      LabelValues<L> | undefined,
      number | undefined,
    ];
    const amount = by ?? 1;
    if (!(amount >= 0)) throw new Error(`counter ${this.name}: cannot add ${amount}`);
    this.slot(labels, () => 0).value += amount;
  }

  /**
   * The series of these label values as a function that adds 1 to it. For counters bumped on
   * every event: the labels are looked up once here, not on each call.
   *
   * @example
   * const messages = received.incrementer({ type: "message" });
   * messages();
   */
  incrementer(...args: [L] extends [never] ? [] : [labels: LabelValues<L>]): () => void {
    const series = this.slot(args[0] as LabelValues<L> | undefined, () => 0);
    return () => {
      series.value++;
    };
  }

  protected samples(labels: [string, string][], value: unknown): string[] {
    return [`${this.name}${formatLabels(labels)} ${formatValue(value as number)}`];
  }
}

/** A value that goes up and down; `collect` computes it at exposition time. */
export class Gauge<L extends string = never> extends Metric<L> {
  readonly type = "gauge";
  readonly #collect: (() => number) | undefined;

  constructor(def: Definition<L> & { collect?: () => number }) {
    super(def);
    this.#collect = def.collect;
  }

  set(...args: [L] extends [never] ? [value: number] : [labels: LabelValues<L>, value: number]) {
    const [labels, value] = (this.labelNames.length === 0 ? [undefined, args[0]] : args) as [
      LabelValues<L> | undefined,
      number,
    ];
    this.slot(labels, () => 0).value = value;
  }

  override lines(): string[] {
    if (this.#collect) this.slot(undefined, () => 0).value = this.#collect();
    return super.lines();
  }

  protected samples(labels: [string, string][], value: unknown): string[] {
    return [`${this.name}${formatLabels(labels)} ${formatValue(value as number)}`];
  }
}

interface HistogramState {
  counts: number[];
  sum: number;
  count: number;
}

/** Default buckets, in seconds: 5 ms to 10 s. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Counts `value` into a histogram series: each bucket it falls in, the sum and the count. */
function record(buckets: readonly number[], state: HistogramState, value: number): void {
  for (let i = 0; i < buckets.length; i++) if (value <= buckets[i]!) state.counts[i]!++;
  state.sum += value;
  state.count++;
}

/** Observations counted into cumulative buckets, with their sum and count. */
export class Histogram<L extends string = never> extends Metric<L> {
  readonly type = "histogram";
  readonly buckets: readonly number[];

  constructor(def: Definition<L> & { buckets?: readonly number[] }) {
    super(def);
    if (this.labelNames.includes("le" as L))
      throw new Error(`histogram ${def.name}: "le" is reserved`);
    const buckets = [...(def.buckets ?? DEFAULT_BUCKETS)].sort((a, b) => a - b);
    if (buckets.length === 0 || buckets.some((b, i) => !Number.isFinite(b) || b === buckets[i - 1]))
      throw new Error(`histogram ${def.name}: buckets must be distinct finite numbers`);
    this.buckets = buckets;
  }

  observe(
    ...args: [L] extends [never] ? [value: number] : [labels: LabelValues<L>, value: number]
  ): void {
    const [labels, value] = (this.labelNames.length === 0 ? [undefined, args[0]] : args) as [
      LabelValues<L> | undefined,
      number,
    ];
    record(this.buckets, this.slot<HistogramState>(labels, this.#fresh).value, value);
  }

  /**
   * The series of these label values as a function that records one observation into it. For
   * histograms fed on every reply: the labels are looked up once here, not on each call (`observe`
   * builds its argument lists and looks the series up each time).
   *
   * @example
   * const observeLatency = latency.observer();
   * observeLatency(0.004);
   */
  observer(...args: [L] extends [never] ? [] : [labels: LabelValues<L>]): (value: number) => void {
    const state = this.slot<HistogramState>(
      args[0] as LabelValues<L> | undefined,
      this.#fresh,
    ).value;
    const buckets = this.buckets;
    return (value) => record(buckets, state, value);
  }

  /** A new series' state: no observations. */
  readonly #fresh = (): HistogramState => ({
    counts: this.buckets.map(() => 0),
    sum: 0,
    count: 0,
  });

  override lines(): string[] {
    if (this.series.size === 0 && this.labelNames.length === 0)
      this.slot<HistogramState>(undefined, this.#fresh);
    return super.lines();
  }

  protected samples(labels: [string, string][], value: unknown): string[] {
    const state = value as HistogramState;
    const out = this.buckets.map(
      (bound, i) =>
        `${this.name}_bucket${formatLabels([...labels, ["le", formatValue(bound)]])} ${state.counts[i]}`,
    );
    out.push(`${this.name}_bucket${formatLabels([...labels, ["le", "+Inf"]])} ${state.count}`);
    out.push(`${this.name}_sum${formatLabels(labels)} ${formatValue(state.sum)}`);
    out.push(`${this.name}_count${formatLabels(labels)} ${state.count}`);
    return out;
  }
}

/**
 * A set of metrics exposed together.
 *
 * @example
 * const registry = new MetricsRegistry();
 * const calls = registry.counter({ name: "api_calls_total", help: "API calls", labels: ["status"] });
 * calls.inc({ status: 200 });
 * registry.expose(); // "# HELP api_calls_total API calls\n# TYPE api_calls_total counter\n..."
 */
export class MetricsRegistry {
  readonly #metrics = new Map<string, Metric<string>>();

  #add<M extends Metric<string>>(metric: M): M {
    if (this.#metrics.has(metric.name))
      throw new Error(`metric ${metric.name} is already registered`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }

  counter<L extends string = never>(def: Definition<L>): Counter<L> {
    return this.#add(new Counter<L>(def) as unknown as Metric<string>) as unknown as Counter<L>;
  }

  gauge<L extends string = never>(def: Definition<L> & { collect?: () => number }): Gauge<L> {
    return this.#add(new Gauge<L>(def) as unknown as Metric<string>) as unknown as Gauge<L>;
  }

  histogram<L extends string = never>(
    def: Definition<L> & { buckets?: readonly number[] },
  ): Histogram<L> {
    return this.#add(new Histogram<L>(def) as unknown as Metric<string>) as unknown as Histogram<L>;
  }

  /** Every metric in Prometheus text format, ending with a newline. */
  expose(): string {
    return [...this.#metrics.values()].flatMap((m) => m.lines()).join("\n") + "\n";
  }
}
