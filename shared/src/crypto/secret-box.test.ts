import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/load-config.js';
import { secretBoxFrom } from './secret-box.js';

const KEY = 'ab'.repeat(32);

describe('secretBoxFrom', () => {
  it('opens what it sealed only under the same associated data, each seal with its own nonce', () => {
    const box = secretBoxFrom(KEY, 'k', 'K')!;
    const a = box.seal('the text', 'tenant\u0000dec_1');
    expect(box.open(a, 'tenant\u0000dec_1')).toBe('the text');
    expect(box.seal('the text', 'tenant\u0000dec_1')).not.toBe(a);
    expect(() => box.open(a, 'tenant\u0000dec_2')).toThrow();
    const bytes = box.sealBytes(Buffer.from('bytes'), 'x');
    expect(bytes.includes(Buffer.from('bytes'))).toBe(false);
    expect(box.openBytes(bytes, 'x').toString()).toBe('bytes');
    expect(() => secretBoxFrom('cd'.repeat(32), 'k', 'K')!.openBytes(bytes, 'x')).toThrow();
  });

  it('is undefined without a key and refuses a malformed one naming the setting', () => {
    expect(secretBoxFrom('', 'k', 'K')).toBeUndefined();
    expect(() => secretBoxFrom('xyz', 'requestLogKey', 'REQUEST_LOG_KEY')).toThrow(ConfigError);
    expect(() => secretBoxFrom('ab'.repeat(31), 'requestLogKey', 'REQUEST_LOG_KEY')).toThrow(/REQUEST_LOG_KEY/);
  });
});
