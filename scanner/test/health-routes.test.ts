import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScanner, type RunningScanner } from '../src/index.js';
import { testScannerConfig } from './helpers/test-config.js';

// Probes written for the gateway (`/health`) and for Kubernetes habits (`/healthz`) both find the scanner alive.
let scanner: RunningScanner;
beforeAll(async () => {
  scanner = await startScanner(testScannerConfig({}, { port: 0, logLevel: 'silent' }));
});
afterAll(async () => {
  await scanner?.close();
});

describe('the health routes', () => {
  it('GET /health and GET /healthz both answer 200 with the same body', async () => {
    const bodies: unknown[] = [];
    for (const path of ['/health', '/healthz']) {
      const res = await fetch(`${scanner.url}${path}`);
      expect(res.status, path).toBe(200);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toMatchObject({ status: 'ok', service: 'scanner' });
    expect(bodies[1]).toEqual(bodies[0]);
  });
});
