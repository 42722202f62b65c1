import { isIP } from 'node:net';
import { ConfigError } from '@aduana/shared';
import { listSetting } from '../config.js';

/** The address ranges proxy-addr (Fastify's trustProxy) knows by name. */
const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * SCANNER_TRUST_PROXY as Fastify's `trustProxy` (docs/configuration.md): empty or `false`, nothing trusted (the
 * socket's address is the client); a number, that many proxy hops in front of the service (`true` means 1, one
 * reverse proxy); otherwise the comma-separated addresses or CIDRs of the proxies. Trusting every hop is not offered:
 * the leftmost X-Forwarded-For entry is whatever the client wrote.
 */
export function trustProxySetting(value: string): false | string[] | ((address: string, hop: number) => boolean) {
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'false' || v === '0') return false;
  // A hop count as proxy-addr reads one: the n addresses nearest the socket are proxies, the next one is the client.
  const hops = v === 'true' ? 1 : /^\d+$/.test(v) ? Number(v) : undefined;
  if (hops !== undefined) return (_address, hop) => hop < hops;
  const entries = listSetting(value);
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const prefixOk = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!NAMED.has(entry.toLowerCase()) && (family === 0 || !prefixOk || extra !== undefined)) {
      throw new ConfigError('trustProxy', 'SCANNER_TRUST_PROXY', `"${entry}" is not a hop count, an address, a CIDR or loopback/linklocal/uniquelocal`);
    }
  }
  return entries;
}
