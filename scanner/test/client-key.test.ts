import { describe, expect, it } from 'vitest';
import { clientKey } from '../src/clients/client-key.js';
import { trustProxySetting } from '../src/clients/trust-proxy.js';

describe('rate-limit key of a client address', () => {
  it('IPv4 as is; IPv6 by /64 in any spelling; IPv4-mapped IPv6 as its IPv4', () => {
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7');
    const same = ['2001:db8:1:2::1', '2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0:0:0:9', '2001:db8:1:2::1.2.3.4', '2001:db8:1:2::1%eth0'];
    for (const ip of same) expect(clientKey(ip), ip).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('::')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('::ffff:c000:207')).toBe('192.0.2.7');
  });
});

describe('SCANNER_TRUST_PROXY', () => {
  it('empty or false trusts nothing; a number or true is a hop count; otherwise proxy addresses and CIDRs', () => {
    expect(trustProxySetting('')).toBe(false);
    expect(trustProxySetting('false')).toBe(false);
    const one = trustProxySetting('true');
    expect(typeof one === 'function' && [one('10.0.0.1', 0), one('10.0.0.1', 1)]).toEqual([true, false]);
    const two = trustProxySetting('2');
    expect(typeof two === 'function' && [two('x', 1), two('x', 2)]).toEqual([true, false]);
    expect(trustProxySetting('10.0.0.0/8, ::1, loopback')).toEqual(['10.0.0.0/8', '::1', 'loopback']);
    for (const bad of ['10.0.0.0/33', 'proxy.example', '10.0.0.1/8/9', '::1/129']) expect(() => trustProxySetting(bad), bad).toThrow(/SCANNER_TRUST_PROXY/);
  });
});
