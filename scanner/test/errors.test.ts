import { describe, expect, it } from 'vitest';
import { ERRORS, ScannerError, type ErrorCode } from '../src/errors.js';
import { toScannerError } from '../src/plugins/error-handler.js';
import { CollectError } from '../src/collect/index.js';
import { NetGuardError } from '@aduana/shared';
import { page } from './fixtures/snapshots.js';

describe('error registry', () => {
  it('every code has an HTTP error status and a message, and messages are unique', () => {
    for (const [code, e] of Object.entries(ERRORS)) {
      expect(e.status >= 400 && e.status < 600, code).toBe(true);
      expect(e.message.length, code).toBeGreaterThan(5);
    }
    const messages = Object.values(ERRORS).map((e) => e.message);
    expect(new Set(messages).size).toBe(messages.length);
  });

  it('covers every documented status of the public assessment endpoints', () => {
    const statuses = new Set(Object.values(ERRORS).map((e) => e.status));
    for (const s of [400, 429, 502]) expect(statuses.has(s)).toBe(true);
  });

  it('covers every documented status of the KEY endpoints', () => {
    const statuses = new Set(Object.values(ERRORS).map((e) => e.status));
    for (const s of [400, 401, 404, 409, 413, 429, 503]) expect(statuses.has(s)).toBe(true);
  });

  it('maps collector and guard errors: blocked and invalid_url to 400, unreachable and timeout to 502', () => {
    const cases: [unknown, ErrorCode][] = [
      [new NetGuardError('blocked', 'no', 'http://10.0.0.1/'), 'blocked_destination'],
      [new NetGuardError('invalid_url', 'no', 'ftp://x/'), 'invalid_url'],
      [new NetGuardError('dns', 'no', 'http://nx.example/'), 'target_unreachable'],
      [new CollectError('unreachable', 'x', page('')), 'target_unreachable'],
      [new CollectError('timeout', 'x', page('')), 'target_timeout'],
      [Object.assign(new Error("'/%ZZ' is not a valid url component"), { code: 'FST_ERR_BAD_URL', statusCode: 400 }), 'invalid_path'],
      [new Error('anything else'), 'internal'],
    ];
    for (const [err, code] of cases) {
      const mapped = toScannerError(err);
      expect(mapped.code).toBe(code);
      expect(mapped.status).toBe(ERRORS[code].status);
    }
    expect(new ScannerError('rate_limited_ip', 7).retryAfterS).toBe(7);
  });
});
