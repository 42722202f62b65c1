import { describe, expect, it } from 'vitest';
import { classifyAddress, parseAllowList } from './address-policy.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.1.1', 'linkLocal'],
    ['169.254.169.254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['198.18.0.1', 'reserved'], // benchmarking 198.18/15 is filed under reserved by ipaddr.js
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'ipv4Mapped'],
    ['::ffff:8.8.8.8', 'ipv4Mapped'], // mapped spellings are refused outright, not unwrapped
    ['::7f00:1', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['64:ff9b::7f00:1', 'embedded:loopback'], // NAT64 of 127.0.0.1
    ['64:ff9b::a9fe:a9fe', 'embedded:metadata'], // NAT64 of 169.254.169.254
    ['64:ff9b:1::808:808', 'rfc6052'], // local-use NAT64: site-defined, refused
    ['2002:7f00:1::1', 'embedded:loopback'], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', 'embedded:private'], // 6to4 of 192.168.1.1
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'embedded:private'], // Teredo client ~f5ff:fffe = 10.0.0.1
    ['2001:0:a00:1::1', 'embedded:private'], // Teredo server 10.0.0.1
    ['4000::1', 'notGlobalUnicast'],
    ['not-an-ip', 'invalid'],
    ['127.1', 'invalid'], // only canonical literals reach here (WHATWG URL normalises first)
  ])('refuses %s (%s)', (address, reason) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, reason });
  });

  it.each([
    ['93.184.215.14', 'unicast'],
    ['8.8.8.8', 'unicast'],
    ['2606:4700:4700::1111', 'unicast'],
    ['2a00:1450:4001:82b::200e', 'unicast'],
    ['64:ff9b::808:808', 'rfc6052'], // NAT64 of a public address
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'teredo'], // server 65.54.227.120, client 8.8.8.8
  ])('allows public %s', (address, reason) => {
    expect(classifyAddress(address)).toEqual({ allowed: true, reason });
  });

  it('admits allow-listed ranges, in their own family only, and never metadata', () => {
    const allow = parseAllowList(['127.0.0.0/8', '169.254.0.0/16', ' ']);
    expect(allow.cidrs).toEqual(['127.0.0.0/8', '169.254.0.0/16']);
    expect(classifyAddress('127.0.0.2', allow)).toEqual({ allowed: true, reason: 'allowList' });
    expect(classifyAddress('::ffff:127.0.0.1', allow).allowed).toBe(false);
    expect(classifyAddress('::1', allow).allowed).toBe(false);
    expect(classifyAddress('10.0.0.1', allow).allowed).toBe(false);
    expect(classifyAddress('169.254.169.254', allow)).toEqual({ allowed: false, reason: 'metadata' });
    expect(classifyAddress('169.254.1.1', allow).allowed).toBe(true);
  });

  it('rejects a malformed allow-list entry instead of ignoring it', () => {
    expect(() => parseAllowList(['127.0.0.0/33'])).toThrow(/not a CIDR/);
    expect(() => parseAllowList(['localhost'])).toThrow(/not a CIDR/);
  });
});
