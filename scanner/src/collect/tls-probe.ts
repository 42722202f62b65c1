import { connect, rootCertificates, type PeerCertificate, type TLSSocket } from 'node:tls';
import type { NetGuard } from '@aduana/shared';
import type { TlsInfo } from '../snapshot/snapshot.js';
import { probeErrorCode } from './probe-error.js';
import { untilAborted } from './until-aborted.js';

export interface TlsProbeOptions {
  readonly guard: NetGuard;
  readonly timeoutMs: number;
  /** Extra trusted roots, added to the system ones (tests trust their own CA this way). */
  readonly ca?: readonly string[];
  readonly signal?: AbortSignal;
  /** Clock for `daysRemaining` (tests). */
  readonly now?: () => Date;
}

const DAY_MS = 86_400_000;

/**
 * Handshakes with the https origin at the address the guard checked, with SNI set to the host name, and reports how
 * the certificate verifies instead of refusing it: an expired or mismatched certificate is a finding, not a failure.
 * Node still runs the host-name check with `rejectUnauthorized: false`; its verdict lands in `authorizationError`.
 */
export async function probeTls(url: URL, options: TlsProbeOptions): Promise<TlsInfo> {
  let socket: TLSSocket | undefined;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  try {
    const target = await untilAborted(options.guard.check(url), signal);
    const address = target.addresses[0];
    if (address === undefined) throw new Error('no checked address');
    const port = url.port === '' ? 443 : Number(url.port);
    const handshake = new Promise<TLSSocket>((resolve, reject) => {
      socket = connect({
        host: address.address,
        port,
        // SNI must be a name, never an IP literal (RFC 6066); without it Node checks the certificate against the IP.
        ...(target.isIpLiteral ? {} : { servername: target.hostname }),
        rejectUnauthorized: false,
        ALPNProtocols: ['http/1.1'],
        ...(options.ca === undefined ? {} : { ca: [...rootCertificates, ...options.ca] }),
      });
      socket.once('secureConnect', function (this: TLSSocket) {
        resolve(this);
      });
      socket.once('error', reject);
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
    const secure = await handshake;
    const now = (options.now ?? (() => new Date()))();
    return describe(secure, secure.getPeerCertificate(), now);
  } catch (error) {
    if (options.signal?.aborted === true) throw options.signal.reason;
    return failed(timeout.aborted ? 'timeout' : probeErrorCode(error));
  } finally {
    socket?.destroy();
  }
}

function describe(socket: TLSSocket, cert: PeerCertificate, now: Date): TlsInfo {
  const validFrom = new Date(cert.valid_from);
  const validTo = new Date(cert.valid_to);
  const authorizationError = socket.authorized ? undefined : errorCode(socket.authorizationError);
  return {
    authorized: socket.authorized,
    ...(authorizationError === undefined ? {} : { authorizationError }),
    protocol: socket.getProtocol(),
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    subjectAltNames: (cert.subjectaltname ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    validFrom: isoOrEmpty(validFrom),
    validTo: isoOrEmpty(validTo),
    daysRemaining: Number.isNaN(validTo.getTime()) ? 0 : Math.floor((validTo.getTime() - now.getTime()) / DAY_MS),
  };
}

function failed(error: string): TlsInfo {
  return { authorized: false, protocol: null, subject: '', issuer: '', subjectAltNames: [], validFrom: '', validTo: '', daysRemaining: 0, error };
}

// Node types it as Error, but at run time it is the OpenSSL code string (e.g. 'DEPTH_ZERO_SELF_SIGNED_CERT').
function errorCode(value: unknown): string {
  if (typeof value === 'string') return value;
  const code = (value as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return value instanceof Error ? value.message : 'UNKNOWN';
}

/** `CN=example.org, O=Example` from Node's object form (multi-valued attributes come as arrays). */
function distinguishedName(name: Readonly<Record<string, string | string[] | undefined>> | undefined): string {
  if (name === undefined) return '';
  return Object.entries(name)
    .flatMap(([key, value]) => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => `${key}=${v}`)))
    .join(', ');
}

function isoOrEmpty(date: Date): string {
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}
