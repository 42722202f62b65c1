import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;
type Cidr = [IPv4 | IPv6, number];

/** CIDRs an operator explicitly allows despite being non-public (e.g. `127.0.0.0/8` for local tests). */
export interface AllowList {
  readonly cidrs: readonly string[];
  readonly ranges: readonly Cidr[];
}

export interface AddressVerdict {
  readonly allowed: boolean;
  /** Why: an ipaddr.js range name ('loopback', 'private' …), one of ours ('metadata', 'ipv4Compatible',
   * 'notGlobalUnicast', 'embedded:<range>', 'invalid'), 'allowList' or 'unicast'. */
  readonly reason: string;
}

export const EMPTY_ALLOW_LIST: AllowList = Object.freeze({ cidrs: [], ranges: [] });

/** Parses CIDRs once (at start-up); a bad entry throws, so a typo in the setting stops start-up instead of allowing nothing. */
export function parseAllowList(cidrs: readonly string[]): AllowList {
  const ranges: Cidr[] = [];
  for (const raw of cidrs) {
    const cidr = raw.trim();
    if (cidr === '') continue;
    if (!ipaddr.isValidCIDR(cidr)) throw new Error(`not a CIDR: ${JSON.stringify(cidr)}`);
    ranges.push(ipaddr.parseCIDR(cidr));
  }
  return Object.freeze({ cidrs: Object.freeze(cidrs.map((c) => c.trim()).filter((c) => c !== '')), ranges: Object.freeze(ranges) });
}

// Cloud metadata endpoints: refused even when an allow-list covers them (nobody assesses a metadata service).
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

const V6_IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96'); // ipaddr.js calls ::7f00:1 'unicast'; it reaches 127.0.0.1 on some stacks
const V6_NAT64_LOCAL = ipaddr.parseCIDR('64:ff9b:1::/48'); // RFC 8215 local-use NAT64: the embedded v4 is site-defined
const V6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3'); // everything outside is unassigned or special

/**
 * Decides whether a connection to `address` (a plain IPv4 or IPv6 literal, no brackets) may be made.
 * Only global unicast passes, unless the allow-list names the address (in its own family: an IPv4 CIDR never
 * admits an IPv4-mapped IPv6 spelling).
 */
export function classifyAddress(address: string, allow: AllowList = EMPTY_ALLOW_LIST): AddressVerdict {
  const bare = stripZone(address);
  if (isIP(bare) === 0) return { allowed: false, reason: 'invalid' };
  const ip = ipaddr.parse(bare);
  if (METADATA.has(normalise(ip))) return { allowed: false, reason: 'metadata' };
  if (allow.ranges.some((range) => range[0].kind() === ip.kind() && ip.match(range))) return { allowed: true, reason: 'allowList' };
  return ip.kind() === 'ipv4' ? classifyV4(ip as IPv4) : classifyV6(ip as IPv6);
}

function classifyV4(ip: IPv4): AddressVerdict {
  const range = ip.range();
  return { allowed: range === 'unicast', reason: range };
}

function classifyV6(ip: IPv6): AddressVerdict {
  // Order matters: ::/96 contains :: and ::1, which ipaddr.js names better, so ask it first for those two.
  const range = ip.range();
  if (range === 'unspecified' || range === 'loopback') return { allowed: false, reason: range };
  if (ip.match(V6_IPV4_COMPATIBLE)) return { allowed: false, reason: 'ipv4Compatible' };
  if (ip.match(V6_NAT64_LOCAL)) return { allowed: false, reason: 'rfc6052' };
  const embedded = embeddedV4(ip, range);
  if (embedded !== null) {
    for (const v4 of embedded) {
      if (METADATA.has(v4.toString())) return { allowed: false, reason: 'embedded:metadata' };
      const inner = classifyV4(v4);
      if (!inner.allowed) return { allowed: false, reason: `embedded:${inner.reason}` };
    }
    return { allowed: true, reason: range };
  }
  if (range !== 'unicast') return { allowed: false, reason: range };
  if (!ip.match(V6_GLOBAL_UNICAST)) return { allowed: false, reason: 'notGlobalUnicast' };
  return { allowed: true, reason: 'unicast' };
}

/**
 * IPv4 addresses a translation prefix routes to: NAT64 (64:ff9b::/96, last 32 bits), 6to4 (2002::/16, bits 16-47),
 * Teredo (2001::/32: server in bits 32-63, client obfuscated in the last 32 bits). A gateway on the path may deliver
 * to that v4 address, so it must pass the v4 rules. IPv4-mapped (::ffff:0:0/96) is refused outright, not unwrapped.
 */
function embeddedV4(ip: IPv6, range: string): IPv4[] | null {
  const p = ip.parts;
  const v4 = (hi: number, lo: number): IPv4 => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (range) {
    case 'rfc6052':
      return [v4(p[6] ?? 0, p[7] ?? 0)];
    case '6to4':
      return [v4(p[1] ?? 0, p[2] ?? 0)];
    case 'teredo':
      return [v4(p[2] ?? 0, p[3] ?? 0), v4(~(p[6] ?? 0) & 0xffff, ~(p[7] ?? 0) & 0xffff)];
    default:
      return null;
  }
}

function stripZone(address: string): string {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zone = bare.indexOf('%');
  return zone === -1 ? bare : bare.slice(0, zone);
}

function normalise(ip: IPv4 | IPv6): string {
  return ip.kind() === 'ipv6' ? (ip as IPv6).toRFC5952String() : ip.toString();
}
