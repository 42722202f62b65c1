import { isIP } from 'node:net';
import type { CheckedTarget } from '@aduana/shared';
import { ScannerError } from '../errors.js';

/** Where this service itself listens and is published: assessing any of these is a self-audit (refused, 400). */
export interface SelfIdentity {
  /** PUBLIC_HOSTNAMES, lower-case. */
  readonly hostnames: readonly string[];
  /** The listener's addresses, known once it listens (empty under `inject`). */
  listeners(): readonly { address: string; port: number }[];
}

const LOOPBACK_NAME = /^(localhost|localhost\.|127(\.\d{1,3}){3}|::1|0\.0\.0\.0|::)$/;
const WILDCARD = new Set(['0.0.0.0', '::']);

/**
 * The target URL as the routes accept it. The JSON Schema already checked length, format and scheme; this keeps the
 * checks a schema cannot make (credentials, empty host) and the self-audit rule. Private destinations are the
 * collector's guard's job (it resolves names and pins the checked address).
 */
export function checkTarget(raw: string, self: SelfIdentity): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ScannerError('invalid_url');
  }
  // Port 0 cannot be connected to: a bad URL (400), not an unreachable target.
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || url.username !== '' || url.password !== '' || url.port === '0') {
    throw new ScannerError('invalid_url');
  }
  refuseSelf(url, self);
  return url;
}

/** Throws self_audit when `url` is this service: one of its public host names, or its own listener. */
export function refuseSelf(url: URL, self: SelfIdentity): void {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const bare = host.endsWith('.') ? host.slice(0, -1) : host;
  if (self.hostnames.some((h) => h === host || h === bare)) throw new ScannerError('self_audit');
  listenerCheck(host, portOf(url), self);
}

function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/**
 * The self-audit rule at a hop the guard accepted (a redirect, a secondary fetch): the URL as written, and every
 * address its name resolved to, so a name pointing back at the listener is refused too.
 */
export function refuseSelfHop(target: CheckedTarget, self: SelfIdentity): void {
  refuseSelf(target.url, self);
  for (const a of target.addresses) listenerCheck(a.address.toLowerCase(), portOf(target.url), self);
}

function listenerCheck(host: string, port: number, self: SelfIdentity): void {
  for (const l of self.listeners()) {
    if (l.port !== port) continue;
    const listenerLoopback = WILDCARD.has(l.address) || LOOPBACK_NAME.test(l.address);
    if (host === l.address || (listenerLoopback && (LOOPBACK_NAME.test(host) || (isIP(host) === 4 && host.startsWith('127.'))))) {
      throw new ScannerError('self_audit');
    }
  }
}
