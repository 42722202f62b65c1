import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScannerConfig, type ScannerConfig } from '../../src/config.js';

/** One data directory per test process: a scanner built with the default settings never writes into the checkout. */
const DATA_DIR = mkdtempSync(join(tmpdir(), 'aduana-scanner-test-'));

/** loadScannerConfig with the test process's temp data directory unless the test names its own. */
export function testScannerConfig(
  env: Readonly<Record<string, string | undefined>> = {},
  overrides: Parameters<typeof loadScannerConfig>[1] = {},
): ScannerConfig {
  return loadScannerConfig({ DATA_DIR, ...env }, overrides);
}
