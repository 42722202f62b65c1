import { isIP } from 'node:net';

/**
 * The rate-limit key of a client address. IPv4 addresses count one by one. An IPv6 host usually holds a whole /64
 * (SLAAC, privacy addresses), so the /64 is one client: otherwise each of its 2^64 addresses gets a fresh budget.
 * IPv4-mapped IPv6 (`::ffff:192.0.2.1`) is the IPv4 client it maps.
 */
export function clientKey(ip: string): string {
  const bare = ip.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return bare;
  const groups = expandIpv6(bare.toLowerCase());
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return `${String(hi >> 8)}.${String(hi & 0xff)}.${String(lo >> 8)}.${String(lo & 0xff)}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 read as two groups). */
function expandIpv6(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, dotted.index).replace(/:$/, '') || ':';
    if (text === ':') text = '::';
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':').map((g) => parseInt(g, 16));
  const right = rest === undefined || rest === '' ? [] : rest.split(':').map((g) => parseInt(g, 16));
  const fill = 8 - tail.length - left.length - right.length;
  return [...left, ...(rest === undefined ? [] : new Array<number>(fill).fill(0)), ...right, ...tail];
}
