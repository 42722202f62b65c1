import { isIPv4, isIPv6 } from 'node:net';

/**
 * The source a client is counted as by the limits kept per client (docs/authentication.md, "Login answers"): an IPv4
 * address as it is, an IPv6 address by its /64 prefix. One IPv6 subscriber is routinely given a whole /64, so counting
 * each of its 2^64 addresses apart would give it as many budgets. An IPv4 address mapped into IPv6 (a dual-stack
 * listener's view of an IPv4 client) is its IPv4 address: keyed by /64, every IPv4 client would share one budget.
 *
 * uWS writes an IPv6 peer in full (eight groups of four hexadecimal digits); any other spelling is parsed. Anything
 * that is not an address (none is known for a request whose client left) is its own source.
 */
export function clientSource(address: string): string {
  if (FULL_IPV6.test(address)) return address.startsWith(MAPPED) ? mappedIPv4(address.slice(MAPPED.length)) : `${address.slice(0, 19)}::/64`;
  if (isIPv4(address)) return address;
  const zoneless = address.split('%', 1)[0] as string;
  if (!isIPv6(zoneless)) return address;
  const groups = expandIPv6(zoneless);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${(groups[6] as number) >> 8}.${(groups[6] as number) & 255}.${(groups[7] as number) >> 8}.${(groups[7] as number) & 255}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16).padStart(4, '0'))
    .join(':')}::/64`;
}

const FULL_IPV6 = /^[0-9a-f]{4}(?::[0-9a-f]{4}){7}$/;
const MAPPED = '0000:0000:0000:0000:0000:ffff:';

/** `7f00:0001` (the last two groups of a mapped address) as `127.0.0.1`. */
function mappedIPv4(tail: string): string {
  const hi = parseInt(tail.slice(0, 4), 16);
  const lo = parseInt(tail.slice(5, 9), 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part as two groups). */
function expandIPv6(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined): number[] => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  if (tail === undefined) return front;
  const back = part(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
