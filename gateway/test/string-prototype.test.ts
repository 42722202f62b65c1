import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const helper = (name: string): string => fileURLToPath(new URL(`./helpers/${name}`, import.meta.url));

describe('String.prototype keeps fast properties', () => {
  // ioredis subclasses String, which leaves String.prototype in V8's slow dictionary mode for the whole process and
  // every optimised string method call generic (docs/benchmarks-history.md, "What agents and telemetry cost").
  it('without REDIS_URL the Redis client is not loaded; with it, the shared limits restore the prototype ioredis slows', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--allow-natives-syntax', '--experimental-transform-types', '--no-warnings', '--conditions=source', '--import', helper('register-ts.mjs'), helper('string-prototype-probe.ts')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    // The probe can tell: loading ioredis does turn it slow, and loading the shared limits (REDIS_URL set) makes it
    // fast again.
    expect(JSON.parse(stdout)).toEqual({ afterGateway: true, afterIoredis: false, afterSharedLimits: true });
  }, 90_000);
});
