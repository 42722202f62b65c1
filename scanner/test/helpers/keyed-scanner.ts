import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScannerConfig } from '../../src/config.js';
import { startScanner, type RunningScanner } from '../../src/server.js';
import type { ScannerAppOptions } from '../../src/app.js';
import { issueKey } from '../../src/keys/key-store.js';
import { openScannerStore } from '../../src/storage/scanner-store.js';
import { testScannerConfig } from './test-config.js';

/**
 * Test support: the real scanner on an ephemeral loopback port with its own LMDB data directory, fixture sites on
 * 127.0.0.1 allowed only through SCANNER_ALLOW_PRIVATE, and a small JSON client for the KEY API.
 */
export interface KeyedScanner {
  readonly url: string;
  readonly dataDir: string;
  /** The key the first start wrote to DATA_DIR/bootstrap-scanner.key (organisation `default`). */
  readonly bootstrapKey: string;
  readonly config: ScannerConfig;
  call(method: string, path: string, options?: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<ApiAnswer>;
  close(): Promise<void>;
}

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  // Test code reads whatever the API answered.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

export const TEST_SECRET_KEY = 'a'.repeat(64);

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'aduana-scanner-'));
}

export async function startKeyedScanner(
  overrides: Partial<Record<string, string | number | boolean>> = {},
  options: ScannerAppOptions & { dataDir?: string } = {},
): Promise<KeyedScanner> {
  const dataDir = options.dataDir ?? tempDataDir();
  const config = testScannerConfig(
    {},
    {
      port: 0,
      dataDir,
      allowPrivate: '127.0.0.0/8',
      logLevel: 'silent',
      ratePerIpPerMinute: 10_000,
      ratePerTargetPerHour: 10_000,
      secretKey: TEST_SECRET_KEY,
      ...overrides,
    },
  );
  const running: RunningScanner = await startScanner(config, options);
  const bootstrapKey = readFileSync(join(dataDir, 'bootstrap-scanner.key'), 'utf8').trim();
  return {
    url: running.url,
    dataDir,
    bootstrapKey,
    config,
    async call(method, path, { key = bootstrapKey, body, raw, headers = {} } = {}) {
      const h: Record<string, string> = { ...headers };
      if (key !== null) h.authorization = `Bearer ${key}`;
      if (body !== undefined || raw !== undefined) h['content-type'] ??= 'application/json';
      const res = await fetch(`${running.url}${path}`, { method, headers: h, ...(body !== undefined ? { body: JSON.stringify(body) } : raw !== undefined ? { body: raw } : {}) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
    },
    close: () => running.close(),
  };
}

/** Issues a key for another organisation straight into the data directory (as the CLI does). */
export async function keyForOrg(dataDir: string, org: string): Promise<string> {
  const store = openScannerStore(dataDir);
  try {
    return (await issueKey(store, org)).key;
  } finally {
    await store.close();
  }
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
