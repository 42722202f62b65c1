import { performance } from 'node:perf_hooks';
import type { HostLookup } from '@aduana/shared';
import { type SCANNER_CONFIG } from '../../src/config.js';
import { startScanner, type RunningScanner } from '../../src/server.js';
import { testScannerConfig } from '../helpers/test-config.js';

/**
 * The real scanner, listening on an ephemeral loopback port, for the hostile-target tests: `inject` would share the
 * event loop with the test and could not show the service freezing. Loopback fixture sites pass only through the
 * explicit SCANNER_ALLOW_PRIVATE setting.
 */
export type Overrides = Partial<Record<keyof typeof SCANNER_CONFIG, string | number | boolean>>;

export const GENEROUS = { ratePerIpPerMinute: 10_000, ratePerTargetPerHour: 10_000, ratePlatformPerMinute: 10_000, logLevel: 'silent' } as const;

/** Any name ending in `.test` (trailing dot or not, IDN included) resolves to loopback; others fail. */
export const testNames: HostLookup = async (hostname) => {
  if (/\.test\.?$/.test(hostname)) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

export async function startHostileScanner(overrides: Overrides = {}): Promise<RunningScanner> {
  const config = testScannerConfig({ SCANNER_ALLOW_PRIVATE: '127.0.0.0/8' }, { port: 0, ...GENEROUS, ...overrides });
  return startScanner(config, { collect: { resourceTimeoutMs: 3000, lookup: testNames } });
}

export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
  readonly ms: number;
}

export async function post(scanner: RunningScanner, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${scanner.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown>, headers: res.headers, ms: performance.now() - started };
}

/** How long /healthz takes to answer, measured from this process (which shares the scanner's event loop). */
export async function healthzMs(scanner: RunningScanner): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${scanner.url}/healthz`);
  await res.text();
  if (res.status !== 200) throw new Error(`/healthz answered ${String(res.status)}`);
  return performance.now() - started;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
