import { Worker, type WorkerOptions } from 'node:worker_threads';

// Resolved once at load: built, the worker runs compiled JS; from the TypeScript sources (tests), Node strips the
// types and worker-entry maps `.js` imports to `.ts`.
const fromSources = import.meta.url.endsWith('.ts');
const ENTRY = new URL(fromSources ? './worker-entry.ts' : './worker-entry.js', import.meta.url);
// Built, a worker inherits the process's Node flags (the service's V8 settings, --cpu-prof for a profile per thread).
const EXEC_ARGV = fromSources ? ['--experimental-transform-types', '--no-warnings'] : undefined;

/**
 * The largest old generation of each of the gateway's V8 heaps, MiB: the main thread's through the service's flags
 * (gateway/package.json, `--max-old-space-size`, which V8 then applies to every thread), a worker's here where no such
 * flag was given. A thread's live data is 10–25 MiB; with no limit (V8's default is a quarter of the machine's memory)
 * V8 lets each heap grow to four times it between collections, ~100 MiB a thread under sustained load, and a gateway
 * runs three or more. At 512 MiB it grows about 1.4 times (docs/sidecar.md, "Memory").
 */
export const HEAP_OLD_GENERATION_MB = 512;

/**
 * Starts a worker thread running the module at `main`, named as the build names it (`new URL('./x.js',
 * import.meta.url)`): the same call works from dist/ and from the sources under vitest. Its heap is limited as the
 * main thread's is (HEAP_OLD_GENERATION_MB) unless `resourceLimits` says otherwise.
 */
export function startModuleWorker(main: URL, options: Omit<WorkerOptions, 'argv' | 'execArgv' | 'eval'> = {}): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: HEAP_OLD_GENERATION_MB, ...options.resourceLimits };
  return new Worker(ENTRY, { ...options, resourceLimits, ...(EXEC_ARGV ? { execArgv: EXEC_ARGV } : {}), argv: [main.href] });
}
