import { Worker, type WorkerOptions } from 'node:worker_threads';

// Resolved once at load: built, the worker runs compiled JS; from the TypeScript sources (tests), Node strips the
// types and worker-entry maps `.js` imports to `.ts`.
const fromSources = import.meta.url.endsWith('.ts');
const ENTRY = new URL(fromSources ? './worker-entry.ts' : './worker-entry.js', import.meta.url);
// Built, a worker inherits the process's Node flags (the service's V8 settings, --cpu-prof for a profile per thread).
const EXEC_ARGV = fromSources ? ['--experimental-transform-types', '--no-warnings'] : undefined;

/**
 * Starts a worker thread running the module at `main`, named as the build names it (`new URL('./x.js',
 * import.meta.url)`): the same call works from dist/ and from the sources under vitest.
 */
export function startModuleWorker(main: URL, options: Omit<WorkerOptions, 'argv' | 'execArgv' | 'eval'> = {}): Worker {
  return new Worker(ENTRY, { ...options, ...(EXEC_ARGV ? { execArgv: EXEC_ARGV } : {}), argv: [main.href] });
}
