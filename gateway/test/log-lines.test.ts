import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, startCliService, waitExit } from './helpers/run-cli.js';
import { poll } from '../../shared/test/helpers/poll.js';

/**
 * The gateway's log lines are batched (docs/decisions.md, "Logs"), but a quiet service's lines must still show while it
 * runs: an operator tailing a sidecar that served one request sees that request's line, not nothing until shutdown.
 */
let dataDir: string;
beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-loglines-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('log lines of a quiet gateway', () => {
  it('reach standard output while it runs: the listening line, then one request line', async () => {
    const env = { DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'info', ADUANA_QUIET_BOOTSTRAP: 'true' };
    const { child, output, match } = await startCliService(['gateway'], env, /API and proxy on (http:\/\/\S+),/);
    try {
      const lines = () =>
        output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      await poll(() => lines().some((l) => l['msg'] === 'gateway listening'), { what: 'the listening line' });
      const res = await fetch(`${match[1]}/health`);
      expect(res.status).toBe(200);
      await poll(() => lines().some((l) => l['msg'] === 'request' && l['path'] === '/health'), { what: 'the request line' });
      expect(child.exitCode).toBeNull();
      expect(lines().find((l) => l['path'] === '/health')).toMatchObject({ level: 30, method: 'GET', status: 200, service: 'aduana-gateway' });
    } finally {
      child.kill('SIGTERM');
      await waitExit(child);
    }
  }, 30_000);
});
