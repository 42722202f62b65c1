import { Bench } from 'tinybench';

export interface MicroResult {
  name: string;
  opsPerSec: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  samples: number;
}

/** Runs tinybench tasks (after its warm-up) and returns latency in microseconds. */
export async function microBench(tasks: Record<string, () => unknown>, opts: { timeMs?: number } = {}): Promise<MicroResult[]> {
  const bench = new Bench({ time: opts.timeMs ?? 2000, warmup: true, warmupTime: 300 });
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
  await bench.run();
  return bench.tasks.map((t) => {
    const r = t.result;
    if (r.state !== 'completed') throw new Error(`${t.name}: ${r.state}`);
    return {
      name: t.name,
      opsPerSec: Math.round(r.throughput.mean),
      meanUs: r.latency.mean * 1000,
      p50Us: r.latency.p50 * 1000,
      p99Us: r.latency.p99 * 1000,
      samples: r.latency.samplesCount,
    };
  });
}

/** A plain-text table: each row's cells padded to the column's width. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}

export function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}
