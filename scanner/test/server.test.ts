import { ConfigError } from '@aduana/shared';
import { describe, expect, it } from 'vitest';
import { createScannerApp, loadScannerConfig, startScanner } from '../src/index.js';

describe('startScanner', () => {
  it('listens on the configured host, answers /healthz, and stops cleanly on close', async () => {
    const scanner = await startScanner(loadScannerConfig({}, { port: 0, logLevel: 'silent' }));
    expect(scanner.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${scanner.url}/healthz`);
    expect(res.status).toBe(200);
    await scanner.close();
    await scanner.close(); // idempotent
    await expect(fetch(`${scanner.url}/healthz`)).rejects.toThrow();
  });

  it('defaults to port 8082 and host 127.0.0.1', () => {
    const config = loadScannerConfig({});
    expect([config.port, config.host, config.allowPrivate]).toEqual([8082, '127.0.0.1', '']);
  });

  it('a bad setting stops start-up with an error naming the key', () => {
    expect(() => loadScannerConfig({ SCANNER_PORT: 'eighty' })).toThrow(/SCANNER_PORT/);
    expect(() => createScannerApp(loadScannerConfig({ SCANNER_ALLOW_PRIVATE: '127.0.0.0/99' }))).toThrow(ConfigError);
    expect(() => createScannerApp(loadScannerConfig({ SCANNER_ALLOW_PRIVATE: 'nonsense' }))).toThrow(/SCANNER_ALLOW_PRIVATE/);
  });
});
