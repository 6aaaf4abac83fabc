// The bot's metrics registry: counters, gauges and histograms with labels, kept and written in Prometheus text format by prom-client.
import {
  Counter as PromCounter,
  Gauge as PromGauge,
  Histogram as PromHistogram,
  Registry,
} from "prom-client";

/** The content type of `MetricsRegistry.expose()` output (Prometheus text exposition 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type LabelValues<L extends string> = Readonly<Record<L, string | number>>;

interface Definition<L extends string> {
  name: string;
  help: string;
  labels?: readonly L[];
}

/** prom-client needs a help text: a metric without one is described by its name. */
const helpOf = (def: Definition<string>): string => def.help || def.name;

/** Checks a metric's name and label names, with messages naming the metric. */
function checkDefinition(def: Definition<string>): void {
  if (!METRIC_NAME.test(def.name)) throw new Error(`invalid metric name "${def.name}"`);
  for (const label of def.labels ?? [])
    if (!LABEL_NAME.test(label) || label.startsWith("__"))
      throw new Error(`metric ${def.name}: invalid label name "${label}"`);
}

/** Throws naming the first unknown label, else the first missing one, unless `given` is complete. */
function checkLabels(name: string, labelNames: readonly string[], given: object | undefined): void {
  const values = (given ?? {}) as Record<string, unknown>;
  let count = 0;
  for (const key in values) {
    if (!Object.hasOwn(values, key)) continue;
    if (!labelNames.includes(key)) throw new Error(`metric ${name}: unknown label "${key}"`);
    count++;
  }
  if (count === labelNames.length) return;
  const missing = labelNames.find((l) => values[l] === undefined);
  throw new Error(`metric ${name}: label "${missing}" is missing`);
}

/** A count that only goes up. */
export class Counter<L extends string = never> {
  readonly name: string;
  readonly #metric: PromCounter<string>;
  readonly #labels: readonly string[];
  /** What each incrementer counted since the metrics were last read (`collect` hands it over). */
  readonly #cells: { series: { inc(by: number): void }; n: number }[] = [];

  constructor(def: Definition<L>, registry: Registry) {
    checkDefinition(def);
    this.name = def.name;
    this.#labels = def.labels ?? [];
    const cells = this.#cells;
    this.#metric = new PromCounter({
      name: def.name,
      help: helpOf(def),
      labelNames: [...this.#labels],
      registers: [registry],
      // The incrementers' counts reach prom-client when the metrics are read, not on each call.
      collect() {
        for (const cell of cells) {
          if (cell.n === 0) continue;
          cell.series.inc(cell.n);
          cell.n = 0;
        }
      },
    });
  }

  inc(...args: [L] extends [never] ? [by?: number] : [labels: LabelValues<L>, by?: number]): void {
    const [labels, by] = (this.#labels.length === 0 ? [undefined, args[0]] : args) as [
      LabelValues<L> | undefined,
      number | undefined,
    ];
    const amount = by ?? 1;
    if (!(amount >= 0)) throw new Error(`counter ${this.name}: cannot add ${amount}`);
    if (labels === undefined && this.#labels.length === 0) return this.#metric.inc(amount);
    checkLabels(this.name, this.#labels, labels);
    this.#metric.inc(labels as Record<string, string | number>, amount);
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
    let series: { inc(by: number): void };
    if (this.#labels.length === 0) series = this.#metric;
    else {
      checkLabels(this.name, this.#labels, args[0]);
      series = this.#metric.labels(args[0] as Record<string, string | number>);
    }
    // Shown at 0 from now on, as a series once looked up.
    series.inc(0);
    // A plain count: prom-client's own `inc` (a label hash, a map lookup, exemplar checks) cost
    // about 1.7 µs a reply at saturation, for counters bumped several times per event.
    const cell = { series, n: 0 };
    this.#cells.push(cell);
    return () => {
      cell.n++;
    };
  }
}

/** A value that goes up and down; `collect` computes it at exposition time. */
export class Gauge<L extends string = never> {
  readonly name: string;
  readonly #metric: PromGauge<string>;
  readonly #labels: readonly string[];

  constructor(def: Definition<L> & { collect?: () => number }, registry: Registry) {
    checkDefinition(def);
    this.name = def.name;
    this.#labels = def.labels ?? [];
    const collect = def.collect;
    this.#metric = new PromGauge({
      name: def.name,
      help: helpOf(def),
      labelNames: [...this.#labels],
      registers: [registry],
      ...(collect && {
        collect(this: PromGauge<string>) {
          this.set(collect());
        },
      }),
    });
  }

  set(...args: [L] extends [never] ? [value: number] : [labels: LabelValues<L>, value: number]) {
    const [labels, value] = (this.#labels.length === 0 ? [undefined, args[0]] : args) as [
      LabelValues<L> | undefined,
      number,
    ];
    if (labels === undefined && this.#labels.length === 0) return this.#metric.set(value);
    checkLabels(this.name, this.#labels, labels);
    this.#metric.set(labels as Record<string, string | number>, value);
  }
}

/** Default buckets, in seconds: 5 ms to 10 s. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Observations counted into cumulative buckets, with their sum and count. */
export class Histogram<L extends string = never> {
  readonly name: string;
  readonly buckets: readonly number[];
  readonly #metric: PromHistogram<string>;
  readonly #labels: readonly string[];

  constructor(def: Definition<L> & { buckets?: readonly number[] }, registry: Registry) {
    checkDefinition(def);
    this.name = def.name;
    this.#labels = def.labels ?? [];
    if (this.#labels.includes("le")) throw new Error(`histogram ${def.name}: "le" is reserved`);
    // Sorted here: prom-client counts each observation into the buckets in the order given.
    const buckets = [...(def.buckets ?? DEFAULT_BUCKETS)].sort((a, b) => a - b);
    if (buckets.length === 0 || buckets.some((b, i) => !Number.isFinite(b) || b === buckets[i - 1]))
      throw new Error(`histogram ${def.name}: buckets must be distinct finite numbers`);
    this.buckets = buckets;
    this.#metric = new PromHistogram({
      name: def.name,
      help: helpOf(def),
      labelNames: [...this.#labels],
      buckets,
      registers: [registry],
    });
  }

  observe(
    ...args: [L] extends [never] ? [value: number] : [labels: LabelValues<L>, value: number]
  ): void {
    const [labels, value] = (this.#labels.length === 0 ? [undefined, args[0]] : args) as [
      LabelValues<L> | undefined,
      number,
    ];
    if (labels === undefined && this.#labels.length === 0) return this.#metric.observe(value);
    checkLabels(this.name, this.#labels, labels);
    this.#metric.observe(labels as Record<string, string | number>, value);
  }

  /**
   * The series of these label values as a function that records one observation into it. For
   * histograms fed on every reply: the labels are looked up once here, not on each call.
   *
   * @example
   * const observeLatency = latency.observer();
   * observeLatency(0.004);
   */
  observer(...args: [L] extends [never] ? [] : [labels: LabelValues<L>]): (value: number) => void {
    if (this.#labels.length === 0) return (value) => this.#metric.observe(value);
    checkLabels(this.name, this.#labels, args[0]);
    const series = this.#metric.labels(args[0] as Record<string, string | number>);
    return (value) => series.observe(value);
  }
}

/**
 * A set of metrics exposed together (a prom-client registry of its own, not the global one).
 *
 * @example
 * const registry = new MetricsRegistry();
 * const calls = registry.counter({ name: "api_calls_total", help: "API calls", labels: ["status"] });
 * calls.inc({ status: 200 });
 * await registry.expose(); // "# HELP api_calls_total API calls\n# TYPE api_calls_total counter\n..."
 */
export class MetricsRegistry {
  readonly #registry = new Registry();
  readonly #names = new Set<string>();

  #add<M>(name: string, make: (registry: Registry) => M): M {
    if (this.#names.has(name)) throw new Error(`metric ${name} is already registered`);
    const metric = make(this.#registry);
    this.#names.add(name);
    return metric;
  }

  counter<L extends string = never>(def: Definition<L>): Counter<L> {
    return this.#add(def.name, (registry) => new Counter<L>(def, registry));
  }

  gauge<L extends string = never>(def: Definition<L> & { collect?: () => number }): Gauge<L> {
    return this.#add(def.name, (registry) => new Gauge<L>(def, registry));
  }

  histogram<L extends string = never>(
    def: Definition<L> & { buckets?: readonly number[] },
  ): Histogram<L> {
    return this.#add(def.name, (registry) => new Histogram<L>(def, registry));
  }

  /** Every metric in Prometheus text format, ending with a newline. */
  expose(): Promise<string> {
    return this.#registry.metrics();
  }
}
