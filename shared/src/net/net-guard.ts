import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { Dispatcher } from 'undici';
import { classifyAddress, parseAllowList, type AllowList } from './address-policy.js';
import { NetGuardError } from './net-guard-error.js';
import { bareHostname, parseTargetUrl } from './target-url.js';
import { Agent } from './undici-parts.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has. Injectable so tests can make any name resolve anywhere. */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface NetGuardOptions {
  /** CIDRs allowed despite being non-public (off by default; tests use `127.0.0.0/8`). Metadata addresses stay refused. */
  readonly allowPrivate?: readonly string[] | AllowList;
  readonly lookup?: HostLookup;
  /** TLS/socket options for the pinned connections (`lookup` is the guard's own and cannot be replaced). */
  readonly connect?: {
    readonly rejectUnauthorized?: boolean;
    readonly ca?: string | readonly string[];
    /** Connect time-out, ms (undici's default is 10 s). */
    readonly timeout?: number;
  };
  /** Connections a pinned dispatcher opens per origin (undici's default: unlimited). */
  readonly maxConnectionsPerOrigin?: number;
}

/** A destination that passed the guard; only `NetGuard.check` makes them. */
export interface CheckedTarget {
  readonly url: URL;
  /** Host name without brackets. */
  readonly hostname: string;
  readonly isIpLiteral: boolean;
  /** Every address the host had, all of them allowed: the only ones a connection may use. */
  readonly addresses: readonly ResolvedAddress[];
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export const defaultHostLookup: HostLookup = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * The SSRF guard: checks a URL and every address its host resolves to, then hands out an undici dispatcher that can
 * only connect to those checked addresses (its `connect.lookup` answers from the check, so there is no second DNS
 * lookup for a rebinding answer to slip into; SNI and Host stay the host name). IP-literal URLs never reach a
 * `lookup` in undici, which is why literals are classified here directly.
 *
 * Use: `const t = await guard.check(url); await request(t.url, { dispatcher: guard.dispatcherFor(t) })`, once per
 * hop (redirects are new destinations). `close()` ends the pinned connections.
 */
export class NetGuard {
  readonly allow: AllowList;
  readonly #lookup: HostLookup;
  readonly #connect: NonNullable<NetGuardOptions['connect']>;
  readonly #connections: number | undefined;
  readonly #issued = new WeakSet<CheckedTarget>();
  // Bounded so a long-lived guard (the gateway's webhook sender) cannot collect agents forever; an evicted agent
  // finishes its in-flight requests, then closes.
  readonly #agents = new LRUCache<string, Agent>({
    max: 256,
    dispose: (agent, _key, reason) => {
      if (reason === 'evict') void agent.close();
    },
  });

  constructor(options: NetGuardOptions = {}) {
    const allow = options.allowPrivate ?? [];
    this.allow = isAllowList(allow) ? allow : parseAllowList(allow);
    this.#lookup = options.lookup ?? defaultHostLookup;
    this.#connect = options.connect ?? {};
    this.#connections = options.maxConnectionsPerOrigin;
  }

  /** Throws NetGuardError: `invalid_url`, `dns` or `blocked`. */
  async check(input: string | URL): Promise<CheckedTarget> {
    const url = parseTargetUrl(input);
    const hostname = bareHostname(url);
    const family = isIP(hostname);
    let addresses: readonly ResolvedAddress[];
    if (family !== 0) {
      addresses = [{ address: hostname, family: family === 6 ? 6 : 4 }];
    } else if (isLocalhostName(hostname)) {
      // RFC 6761: localhost names are loopback, whatever DNS says (`localhost.` in any case, `x.localhost`). Answered
      // here without a lookup, so they are refused as loopback (400), never reported as a name that did not resolve.
      addresses = [{ address: '127.0.0.1', family: 4 }];
    } else {
      try {
        addresses = await this.#lookup(hostname);
      } catch (error) {
        throw new NetGuardError('dns', `${hostname} did not resolve`, hostname, { cause: error });
      }
      if (addresses.length === 0) throw new NetGuardError('dns', `${hostname} has no address`, hostname);
    }
    // Every address, not just the first: the connection may fall back to any of them.
    for (const { address } of addresses) {
      const verdict = classifyAddress(address, this.allow);
      if (!verdict.allowed) {
        const via = family === 0 ? `${hostname} resolves to ` : '';
        throw new NetGuardError('blocked', `${via}${address} is not a public address (${verdict.reason})`, url.origin);
      }
    }
    const target: CheckedTarget = Object.freeze({ url, hostname, isIpLiteral: family !== 0, addresses: Object.freeze([...addresses]) });
    this.#issued.add(target);
    return target;
  }

  /** A dispatcher pinned to the target's checked addresses; shared by targets with the same host and addresses. */
  dispatcherFor(target: CheckedTarget): Dispatcher {
    if (!this.#issued.has(target)) throw new NetGuardError('blocked', 'target was not checked by this guard', target.url.origin);
    const key = `${target.hostname}|${target.addresses.map((a) => a.address).join(',')}`;
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      const { ca, ...rest } = this.#connect;
      agent = new Agent({
        ...(this.#connections === undefined ? {} : { connections: this.#connections }),
        connect: { ...rest, ...(ca === undefined ? {} : { ca: typeof ca === 'string' ? ca : [...ca] }), lookup: pinnedLookup(target) },
      });
      this.#agents.set(key, agent);
    }
    return agent;
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((a) => a.close()));
  }
}

const LOCALHOST = /^(?:.+\.)?localhost\.*$/i;

function isLocalhostName(hostname: string): boolean {
  return LOCALHOST.test(hostname);
}

/** A `net` lookup that only knows the checked answer for the checked host name, and refuses anything else. */
function pinnedLookup(target: CheckedTarget): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    if (hostname !== target.hostname) {
      callback(Object.assign(new Error(`lookup of unchecked host ${hostname} refused`), { code: 'ENOTFOUND' }), '');
      return;
    }
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const wanted = family === 4 || family === 6 ? target.addresses.filter((a) => a.family === family) : target.addresses;
    if (options.all === true) {
      callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
      return;
    }
    const first = wanted[0];
    if (first === undefined) {
      callback(Object.assign(new Error(`no checked IPv${String(family)} address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      return;
    }
    callback(null, first.address, first.family);
  };
}

function isAllowList(value: readonly string[] | AllowList): value is AllowList {
  return !Array.isArray(value);
}
