/** Percentile (nearest rank) of an unsorted sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Median and interquartile range: the spread of a latency sample that outliers do not dominate. */
export function summary(values: readonly number[]): { p50: number; p90: number; p99: number; iqr: number; n: number } {
  return { p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99), iqr: percentile(values, 75) - percentile(values, 25), n: values.length };
}

/** Resident set size of a process, MiB (Linux). */
export async function rssMiB(pid: number): Promise<number> {
  const { readFileSync } = await import('node:fs');
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
