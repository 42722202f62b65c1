import type { Worker } from 'node:worker_threads';
import { GatewayError } from '../../errors.js';
import { startModuleWorker } from '../../platform/start-module-worker.js';
import type { PolicySet } from '../compile-policy-set.js';
import type { EvalJob, EvalResult } from './eval-worker-main.js';

// The worker's module, resolved once: a compiled file built, its TypeScript source under the tests.
const WORKER_MODULE = new URL('./eval-worker-main.js', import.meta.url);

interface Pending {
  resolve: (r: EvalResult) => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Judges large inputs in a worker thread, so one tenant's costly text does not hold the event loop every tenant's
 * requests run on (small inputs stay inline: no thread hop on the common path). Each job has a time limit; past it the
 * worker is stopped (RE2 and the PII validators cannot be interrupted otherwise), every job it held fails closed with
 * 413, and a new worker starts with the next job (docs/policies.md, "Limits").
 */
export class EvalPool {
  #worker: Worker | null = null;
  readonly #pending = new Map<number, Pending>();
  #next = 1;

  constructor(private readonly timeoutMs: number) {}

  run(set: PolicySet, strings: string[]): Promise<EvalResult> {
    const worker = this.#ensure();
    const id = this.#next++;
    const job: EvalJob = { id, tenantId: set.tenantId, version: set.version, records: set.records, scopeMask: set.scopeMask, strings };
    return new Promise<EvalResult>((resolve, reject) => {
      const timer = setTimeout(() => this.#stop(new GatewayError('evaluation_timeout', `the request's text could not be judged within ${this.timeoutMs} ms`)), this.timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    const w = this.#worker;
    this.#stop(new GatewayError('shutting_down'));
    if (w) await w.terminate();
  }

  #ensure(): Worker {
    if (this.#worker) return this.#worker;
    const w = startModuleWorker(WORKER_MODULE);
    w.unref();
    w.on('message', (r: EvalResult) => {
      const p = this.#pending.get(r.id);
      if (!p) return;
      this.#pending.delete(r.id);
      clearTimeout(p.timer);
      if (r.error !== null) p.reject(new GatewayError('internal', 'policy evaluation failed'));
      else p.resolve(r);
    });
    w.on('error', () => this.#stop(new GatewayError('internal', 'policy evaluation failed')));
    this.#worker = w;
    return w;
  }

  /** Stops the worker and fails every job it held. */
  #stop(err: GatewayError): void {
    const w = this.#worker;
    this.#worker = null;
    if (w) void w.terminate();
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.#pending.clear();
  }
}
