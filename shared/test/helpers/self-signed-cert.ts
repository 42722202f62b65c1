import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';

/**
 * Test support (the gateway's and the scanner's tests): a self-signed X.509 v3 certificate (ECDSA P-256, SHA-256)
 * made with node:crypto and a tiny DER writer, so TLS tests need neither the openssl binary nor a dependency. Not for
 * production use.
 */
export interface SelfSignedCert {
  readonly key: string; // PKCS#8 PEM
  readonly cert: string; // PEM
}

export interface CertOptions {
  readonly commonName?: string;
  /** DNS names and IPv4 addresses for subjectAltName. */
  readonly altNames?: readonly string[];
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_ALT_NAME = '2.5.29.17';

export function selfSignedCert(options: CertOptions = {}): SelfSignedCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cn = options.commonName ?? 'localhost';
  const notBefore = options.notBefore ?? new Date(Date.now() - 86_400_000);
  const notAfter = options.notAfter ?? new Date(Date.now() + 30 * 86_400_000);
  const serial = randomBytes(8);
  // Positive and minimal: a leading 0x00 before a byte under 0x80 is illegal DER padding (1 certificate in ~512 failed).
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  const name = seq(set(seq(oid(COMMON_NAME), der(0x0c, Buffer.from(cn)))));
  const sans = (options.altNames ?? ['localhost', '127.0.0.1']).map((n) =>
    isIPv4(n) ? der(0x87, Buffer.from(n.split('.').map(Number))) : der(0x82, Buffer.from(n)),
  );
  const tbs = seq(
    der(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    seq(oid(ECDSA_WITH_SHA256)),
    name,
    seq(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, seq(seq(oid(SUBJECT_ALT_NAME), der(0x04, seq(...sans))))),
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature, as X.509 wants
  const certificate = seq(tbs, seq(oid(ECDSA_WITH_SHA256)), der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${certificate.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`.replace('\n\n', '\n'),
  };
}

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

function seq(...parts: Buffer[]): Buffer {
  return der(0x30, Buffer.concat(parts));
}

function set(...parts: Buffer[]): Buffer {
  return der(0x31, Buffer.concat(parts));
}

function integer(value: Buffer): Buffer {
  return der(0x02, (value[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDHHMMSSZ
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso));
}
