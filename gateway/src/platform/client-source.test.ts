import { describe, expect, it } from 'vitest';
import { clientSource } from './client-source.js';

describe('client sources', () => {
  it('IPv6 addresses of one /64 are one source, in the form uWS writes them or any other', () => {
    const a = clientSource('2001:0db8:0001:0002:0000:0000:0000:0001');
    expect(a).toBe('2001:0db8:0001:0002::/64');
    expect(clientSource('2001:0db8:0001:0002:ffff:abcd:0123:4567')).toBe(a);
    expect(clientSource('2001:db8:1:2::99')).toBe(a);
    expect(clientSource('2001:DB8:1:2:0:0:0:1%eth0')).toBe(a);
    expect(clientSource('2001:0db8:0001:0003:0000:0000:0000:0001')).not.toBe(a);
    expect(clientSource('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('0000:0000:0000:0000::/64');
    expect(clientSource('::1')).toBe('0000:0000:0000:0000::/64');
  });

  it('IPv4 addresses are each their own source, mapped into IPv6 or not', () => {
    expect(clientSource('127.0.0.2')).toBe('127.0.0.2');
    expect(clientSource('0000:0000:0000:0000:0000:ffff:7f00:0002')).toBe('127.0.0.2');
    expect(clientSource('::ffff:127.0.0.3')).toBe('127.0.0.3');
    expect(clientSource('::ffff:c000:0201')).toBe('192.0.2.1');
  });

  it('what is not an address is its own source', () => {
    expect(clientSource('')).toBe('');
    expect(clientSource('not an address')).toBe('not an address');
    expect(clientSource('1:2:3')).toBe('1:2:3');
  });
});
