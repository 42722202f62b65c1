import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { loadScannerConfig, type ScannerConfig } from '../../src/config.js';

/** One data directory per test process: a scanner built with the default settings never writes into the checkout. */
const DATA_DIR = mkdtempSync(join(tmpdir(), 'aduana-scanner-test-'));
// Registered while the importing test file is collected: removed after that file's tests (vitest's workers never
// emit 'exit').
afterAll(() => rmSync(DATA_DIR, { recursive: true, force: true }));

/** loadScannerConfig with the test process's temp data directory unless the test names its own. */
export function testScannerConfig(
  env: Readonly<Record<string, string | undefined>> = {},
  overrides: Parameters<typeof loadScannerConfig>[1] = {},
): ScannerConfig {
  return loadScannerConfig({ DATA_DIR, ...env }, overrides);
}
