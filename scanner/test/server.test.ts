import { ConfigError } from '@aduana/shared';
import { describe, expect, it } from 'vitest';
import { createScannerApp, startScanner } from '../src/index.js';
import { testScannerConfig } from './helpers/test-config.js';

describe('startScanner', () => {
  it('listens on the configured host, answers /healthz, and stops cleanly on close', async () => {
    const scanner = await startScanner(testScannerConfig({}, { port: 0, logLevel: 'silent' }));
    expect(scanner.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${scanner.url}/healthz`);
    expect(res.status).toBe(200);
    await scanner.close();
    await scanner.close(); // idempotent
    await expect(fetch(`${scanner.url}/healthz`)).rejects.toThrow();
  });

  it('defaults to port 8082 and host 127.0.0.1', () => {
    const config = testScannerConfig({});
    expect([config.port, config.host, config.allowPrivate]).toEqual([8082, '127.0.0.1', '']);
  });

  it('a bad setting stops start-up with an error naming the key', () => {
    expect(() => testScannerConfig({ SCANNER_PORT: 'eighty' })).toThrow(/SCANNER_PORT/);
    expect(() => createScannerApp(testScannerConfig({ SCANNER_ALLOW_PRIVATE: '127.0.0.0/99' }))).toThrow(ConfigError);
    expect(() => createScannerApp(testScannerConfig({ SCANNER_ALLOW_PRIVATE: 'nonsense' }))).toThrow(/SCANNER_ALLOW_PRIVATE/);
  });
});
