import type { Metric, MetricValueWithName, Registry } from 'prom-client';

/** One label value's counts: observed on the request path with a bucket search and three adds, nothing allocated. */
export class BucketSeries {
  /** Per bucket (not cumulative); the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: Float64Array) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!(value >= 0)) return; // NaN or negative (a clock step): not a duration, as prom-client refuses non-finite values
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

export interface BucketHistogramOptions {
  name: string;
  help: string;
  /** Upper bounds, ascending; +Inf is added. */
  buckets: readonly number[];
  /** The one label the series are kept by (none: a single series). */
  labelName?: string;
  /** Registered there at once; without one, `registerWith` does it later (observations are kept meanwhile). */
  registry?: Registry;
}

/**
 * A Prometheus histogram whose observations cost a bucket search and three adds, formatted by prom-client's registry
 * at scrape time. prom-client's own Histogram hashes the label set and turns the bound into a property name on every
 * observation, about 1.5 µs each; two per decision were 1–2% of its CPU (docs/benchmarks-history.md, "What agents and
 * telemetry cost"). The registry formats any metric that has a name, help, type and `get()` (the same contract its
 * own metrics implement); what it is handed here is the exposition prom-client's Histogram would give for the same
 * observations.
 */
export class BucketHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: Float64Array;
  readonly #labelName: string | undefined;
  readonly #series = new Map<string, BucketSeries>();

  constructor(o: BucketHistogramOptions) {
    this.name = o.name;
    this.help = o.help;
    this.#bounds = Float64Array.from(o.buckets);
    for (let i = 1; i < this.#bounds.length; i++) if (!((this.#bounds[i] as number) > (this.#bounds[i - 1] as number))) throw new Error(`${o.name}: buckets must ascend`);
    this.#labelName = o.labelName;
    if (o.registry) this.registerWith(o.registry);
  }

  registerWith(registry: Registry): void {
    // Metric is prom-client's union of its own classes; its registry reads only the members this class has.
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of one label value (of the only series, without a label), made once and kept by the caller. */
  series(labelValue = ''): BucketSeries {
    let s = this.#series.get(labelValue);
    if (!s) {
      s = new BucketSeries(this.#bounds);
      this.#series.set(labelValue, s);
    }
    return s;
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValueWithName<string>[] }> {
    const values: MetricValueWithName<string>[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const [labelValue, s] of this.#series) {
      const labels: Record<string, string> = this.#labelName === undefined ? {} : { [this.#labelName]: labelValue };
      let cumulative = 0;
      for (let i = 0; i <= this.#bounds.length; i++) {
        cumulative += s.counts[i] as number;
        const le = i < this.#bounds.length ? (this.#bounds[i] as number) : '+Inf';
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: bucketName });
      }
      values.push({ labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
