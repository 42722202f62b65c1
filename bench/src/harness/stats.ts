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

/**
 * Resident memory of a process, MiB (Linux): `rss` as `ps` shows it, and `anon`, the part that is the process's own
 * (heap, stacks, native allocations). The rest is file-backed: the Node binary's code pages and LMDB's memory-mapped
 * data file, page cache the kernel can reclaim.
 */
export async function memoryMiB(pid: number): Promise<{ rss: number; anon: number; file: number }> {
  const { readFileSync } = await import('node:fs');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
}

/**
 * CPU time a process has used so far (user + system, all its threads), ms, from /proc. On a shared virtual machine,
 * CPU per call is a steadier comparison between two builds than throughput, which the neighbours' load moves.
 */
export async function processCpuMs(pid: number): Promise<number> {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** user + system ms of a /proc stat line (a process's, or one of its threads'). */
async function statCpuMs(path: string): Promise<number> {
  const { readFileSync } = await import('node:fs');
  // The command name may hold spaces and parentheses: the fields start after its last ') '.
  const text = readFileSync(path, 'utf8');
  const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
}

/**
 * CPU a process has used so far, ms: its main thread (the request thread of a gateway with one) apart from the whole
 * process (every thread: the evaluation worker, LMDB's writer, V8's compiler and GC threads, libuv's pool).
 */
export async function threadCpuMs(pid: number): Promise<{ main: number; all: number }> {
  return { main: await statCpuMs(`/proc/${pid}/task/${pid}/stat`), all: await processCpuMs(pid) };
}

/** CPU per call, µs, between two threadCpuMs readings. */
export function cpuPerCallUs(before: { main: number; all: number }, after: { main: number; all: number }, calls: number): { main: number; all: number } {
  const n = Math.max(1, calls);
  return { main: ((after.main - before.main) * 1000) / n, all: ((after.all - before.all) * 1000) / n };
}
