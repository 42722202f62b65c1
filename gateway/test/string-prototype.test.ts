import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const helper = (name: string): string => fileURLToPath(new URL(`./helpers/${name}`, import.meta.url));

describe('start-up without REDIS_URL', () => {
  // ioredis subclasses String, which leaves String.prototype in V8's slow dictionary mode for the whole process and
  // every optimised string method call generic (docs/benchmarks.md, "What agents and telemetry cost").
  it('does not load the Redis client, so String.prototype keeps fast properties', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--allow-natives-syntax', '--experimental-transform-types', '--no-warnings', '--conditions=source', '--import', helper('register-ts.mjs'), helper('string-prototype-probe.ts')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    // The probe can tell: loading ioredis does turn it slow.
    expect(JSON.parse(stdout)).toEqual({ afterGateway: true, afterIoredis: false });
  }, 90_000);
});
