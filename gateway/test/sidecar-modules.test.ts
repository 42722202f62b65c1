import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './helpers/run-cli.js';

// What the gateway's process loads, checked in a fresh Node process: a test worker has modules of its own loaded.
const PROBE = `
import { createRequire } from 'node:module';
await import(new URL('../dist/cli/run-cli.js', process.env.PROBE_FROM).href);
await import(new URL('../dist/gateway.js', process.env.PROBE_FROM).href);
const { Pool, Agent } = await import('@aduana/shared');
const loaded = Object.keys(createRequire(process.env.PROBE_FROM).cache);
const pool = new Pool('http://127.0.0.1:9');
const agent = new Agent();
const report = {
  undiciIndex: loaded.some((f) => /[\\\\/]undici[\\\\/]index\\.js$/.test(f)),
  undiciModules: loaded.filter((f) => /[\\\\/]undici[\\\\/]/.test(f)).length,
  poolRequest: typeof pool.request,
  agentStream: typeof agent.stream,
};
await Promise.all([pool.close(), agent.close()]);
process.stdout.write(JSON.stringify(report));
`;

beforeAll(() => assertBuilt());

describe("the gateway's modules", () => {
  it("load undici's dispatchers without its index, with the request API its index would have added", () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE], {
      cwd: new URL('..', import.meta.url),
      env: { ...process.env, PROBE_FROM: import.meta.url },
      encoding: 'utf8',
    });
    const report = JSON.parse(out) as { undiciIndex: boolean; undiciModules: number; poolRequest: string; agentStream: string };
    expect(report.undiciIndex).toBe(false);
    expect(report.undiciModules).toBeGreaterThan(0);
    expect(report.poolRequest).toBe('function');
    expect(report.agentStream).toBe('function');
  });
});
