import { hash, randomBytes, X509Certificate } from 'node:crypto';
import type * as Asn1jsModule from 'asn1js';
import type * as PkijsModule from 'pkijs';

/**
 * RFC 3161 time-stamp requests and tokens, through PKI.js and asn1js (parsing CMS by hand is where verifiers go
 * wrong). Both are loaded on first use: only a gateway that time-stamps checkpoints, or a verify that meets a token,
 * pays for them. The offline verifier (scripts/verify-ledger-export.mjs) checks the same things with Node alone.
 */
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';
const OID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const OID_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';

type Pkijs = typeof PkijsModule;
type Asn1js = typeof Asn1jsModule;
let libs: Promise<{ pkijs: Pkijs; asn1js: Asn1js }> | null = null;
function load(): Promise<{ pkijs: Pkijs; asn1js: Asn1js }> {
  libs ??= Promise.all([import('pkijs'), import('asn1js')]).then(([pkijs, asn1js]) => ({ pkijs, asn1js }));
  return libs;
}

/** A fresh request nonce: 64 random bits as a positive INTEGER with a minimal encoding, in decimal. */
export function newNonce(): string {
  const bytes = randomBytes(8);
  bytes[0] = (bytes[0]! & 0x3f) | 0x40;
  return BigInt(`0x${bytes.toString('hex')}`).toString();
}

/** DER TimeStampReq (RFC 3161 §2.4.1): SHA-256 imprint of `message`, the nonce, certReq so the token carries the TSA's certificate. */
export async function timestampRequest(message: Buffer, nonce: string): Promise<Buffer> {
  const { pkijs, asn1js } = await load();
  const req = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID_SHA256, algorithmParams: new asn1js.Null() }),
      hashedMessage: new asn1js.OctetString({ valueHex: hash('sha256', message, 'buffer') }),
    }),
    nonce: asn1js.Integer.fromBigInt(BigInt(nonce)),
    certReq: true,
  });
  return Buffer.from(req.toSchema().toBER(false));
}

/** The token of a TimeStampResp (RFC 3161 §2.4.2), its bytes exactly as the TSA sent them; throws when the TSA refused. */
export async function tokenOfResponse(der: Uint8Array): Promise<Buffer> {
  const { pkijs, asn1js } = await load();
  const parsed = asn1js.fromBER(der);
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence)) throw new Error('the TSA answered something that is not a TimeStampResp');
  const resp = new pkijs.TimeStampResp({ schema: parsed.result });
  const status = resp.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    const text = resp.status.statusStrings?.map((s) => s.valueBlock.value).join('; ') ?? '';
    throw new Error(`the TSA refused the request (status ${status}${text ? `: ${text}` : ''})`);
  }
  const token = parsed.result.valueBlock.value[1];
  if (!token) throw new Error('the TSA granted the request but sent no token');
  return Buffer.from(token.valueBeforeDecodeView);
}

export type TokenCheck = { ok: true; genTime: string } | { ok: false; reason: string };

/**
 * Checks a time-stamp token (a CMS SignedData of a TSTInfo) for `message`: its imprint is SHA-256 of `message`, its
 * nonce is `nonce`, it is signed by the one signer's certificate carried in it (signed attributes, message digest,
 * signature), that certificate is for time-stamping and was valid at the token's time, and, when `pinned` is given,
 * it is that certificate or one it issued.
 */
export async function checkTimestampToken(token: Uint8Array, message: Buffer, nonce: string, pinned: X509Certificate | null): Promise<TokenCheck> {
  const { pkijs, asn1js } = await load();
  const fail = (reason: string): TokenCheck => ({ ok: false, reason });
  let signed: InstanceType<Pkijs['SignedData']>;
  let tst: InstanceType<Pkijs['TSTInfo']>;
  try {
    const info = pkijs.ContentInfo.fromBER(token);
    if (info.contentType !== OID_SIGNED_DATA) return fail('not a CMS SignedData');
    signed = new pkijs.SignedData({ schema: info.content });
    const eContent = signed.encapContentInfo.eContent;
    if (signed.encapContentInfo.eContentType !== OID_TST_INFO || !eContent) return fail('does not hold a TSTInfo');
    tst = pkijs.TSTInfo.fromBER(eContent.getValue());
  } catch (err) {
    return fail(`cannot be parsed (${(err as Error).message})`);
  }
  const imprint = tst.messageImprint;
  if (imprint.hashAlgorithm.algorithmId !== OID_SHA256) return fail('its imprint is not SHA-256');
  if (!Buffer.from(imprint.hashedMessage.valueBlock.valueHexView).equals(hash('sha256', message, 'buffer'))) return fail('time-stamps other data (its imprint is not this checkpoint\'s)');
  if (!tst.nonce || tst.nonce.toBigInt().toString() !== nonce) return fail('does not carry the nonce that was sent');
  if (signed.signerInfos.length !== 1) return fail('does not have exactly one signer');
  const contentType = signed.signerInfos[0]!.signedAttrs?.attributes.find((a) => a.type === OID_CONTENT_TYPE)?.values[0];
  if (!(contentType instanceof asn1js.ObjectIdentifier) || contentType.valueBlock.toString() !== OID_TST_INFO) return fail('its signed content-type attribute is not TSTInfo');
  let result: { signatureVerified?: boolean | null; signerCertificate?: InstanceType<Pkijs['Certificate']> | null };
  try {
    result = await signed.verify({ signer: 0, data: new Uint8Array(message).buffer, extendedMode: true, checkChain: false });
  } catch (err) {
    return fail(`does not verify (${(err as Error).message})`);
  }
  if (result.signatureVerified !== true || !result.signerCertificate) return fail('has a bad signature');
  const cert = new X509Certificate(Buffer.from(result.signerCertificate.toSchema().toBER(false)));
  if (!cert.keyUsage?.includes(OID_TIME_STAMPING)) return fail("is signed by a certificate that is not for time-stamping (no extendedKeyUsage timeStamping)");
  const genTime = tst.genTime;
  if (genTime < new Date(cert.validFrom) || genTime > new Date(cert.validTo)) return fail("was made outside its signing certificate's validity");
  if (pinned && cert.fingerprint256 !== pinned.fingerprint256 && !(cert.checkIssued(pinned) && cert.verify(pinned.publicKey))) {
    return fail('is not signed by the pinned TSA certificate (ANCHOR_TSA_CERT) nor by one it issued');
  }
  return { ok: true, genTime: genTime.toISOString() };
}
