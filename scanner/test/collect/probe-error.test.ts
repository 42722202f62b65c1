import { describe, expect, it } from 'vitest';
import { NetGuardError } from '@aduana/shared';
import { probeErrorCode } from '../../src/collect/probe-error.js';

const coded = (code: string, cause?: unknown): Error => Object.assign(new Error(code, { cause }), { code });

describe('probeErrorCode', () => {
  it.each([
    [new NetGuardError('blocked', 'x', 'http://10.0.0.1'), 'blocked'],
    [new NetGuardError('invalid_url', 'x', 'ftp://a'), 'blocked'], // a redirect the guard will not follow
    [new NetGuardError('dns', 'x', 'nowhere.invalid'), 'dns'],
    [coded('ECONNREFUSED'), 'refused'],
    [new TypeError('fetch failed', { cause: coded('ECONNREFUSED') }), 'refused'],
    [new AggregateError([coded('ETIMEDOUT'), coded('ENETUNREACH')]), 'timeout'],
    [coded('UND_ERR_CONNECT_TIMEOUT'), 'timeout'],
    [coded('EAI_AGAIN'), 'dns'],
    [coded('UND_ERR_HEADERS_OVERFLOW'), 'too_large'],
    [coded('ERR_SSL_WRONG_VERSION_NUMBER'), 'tls'],
    [coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
    [coded('CERT_HAS_EXPIRED'), 'tls'],
    [coded('ECONNRESET'), 'network'],
    [new Error('mystery'), 'network'],
    ['not even an error', 'network'],
  ])('maps %s to %s', (error, code) => {
    expect(probeErrorCode(error)).toBe(code);
  });
});
