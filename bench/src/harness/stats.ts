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

/** CPU a process has used so far, ms: its main thread, each of its threads by id, and all of them together. */
export interface ThreadCpu {
  pid: number;
  main: number;
  threads: Map<number, number>;
  all: number;
}

/**
 * CPU a process has used so far, ms, from /proc: its main thread (the gateway's request thread), every other thread
 * (the ledger's writer thread, the evaluation worker, V8's compiler and GC threads, libuv's pool) and the total.
 */
export async function threadCpuMs(pid: number): Promise<ThreadCpu> {
  const { readdirSync } = await import('node:fs');
  const threads = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(Number(tid), await statCpuMs(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { pid, main: threads.get(pid) ?? NaN, threads, all: await processCpuMs(pid) };
}

/** CPU per call, µs, between two threadCpuMs readings. */
export interface CpuPerCall {
  main: number;
  /**
   * The busiest thread other than the main one over the run: under a load of decisions, calls or events that is the
   * ledger's writer thread, which chains, indexes and commits every one of them, or with GATEWAY_THREADS above 1 a
   * request thread (threads are not named to us).
   */
  writer: number;
  /** The next busiest: with a request thread, the ledger's writer. */
  next: number;
  all: number;
}

export function cpuPerCallUs(before: ThreadCpu, after: ThreadCpu, calls: number): CpuPerCall {
  const n = Math.max(1, calls);
  const others = [...after.threads].filter(([tid]) => tid !== after.pid).map(([tid, ms]) => ms - (before.threads.get(tid) ?? 0));
  others.sort((a, b) => b - a);
  return { main: ((after.main - before.main) * 1000) / n, writer: ((others[0] ?? 0) * 1000) / n, next: ((others[1] ?? 0) * 1000) / n, all: ((after.all - before.all) * 1000) / n };
}
