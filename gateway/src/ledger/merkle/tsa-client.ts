import type { X509Certificate } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { request } from '@aduana/shared';
import type { CheckpointAnchor } from './checkpoint.js';
import { checkTimestampToken, newNonce, timestampRequest, tokenOfResponse } from './timestamp-token.js';

/** A TimeStampResp is a few KiB (the token and the TSA's certificates); anything past this is not one. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * One RFC 3161 exchange over HTTP (RFC 3161 §3.4): POSTs a TimeStampReq for `message` with a fresh nonce, and returns
 * the token only once it checks out against `message`, the nonce and the TSA certificate (pinned, when given). Throws
 * on anything else: the caller retries. `dispatcher`: the egress proxy's, when one is set.
 */
export async function requestTimestamp(
  url: string,
  message: Buffer,
  options: { pinned: X509Certificate | null; signal: AbortSignal; dispatcher?: Dispatcher | undefined },
): Promise<CheckpointAnchor> {
  const nonce = newNonce();
  const res = await request(url, {
    dispatcher: options.dispatcher,
    method: 'POST',
    headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
    body: await timestampRequest(message, nonce),
    signal: options.signal,
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`the TSA answered HTTP ${res.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_RESPONSE_BYTES) {
      res.body.destroy();
      throw new Error(`the TSA's answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const token = await tokenOfResponse(Buffer.concat(chunks));
  const check = await checkTimestampToken(token, message, nonce, options.pinned);
  if (!check.ok) throw new Error(`the TSA's token ${check.reason}`);
  return { token: token.toString('base64'), nonce, gen_time: check.genTime };
}
