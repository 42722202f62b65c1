import type { Dispatcher } from 'undici';
import { request } from '@aduana/shared';
import { PermanentExportError } from './export-queue.js';

/**
 * POSTs one forwarded batch with undici (`label` names it in errors: a URL may carry a key). 2xx is delivered; 408, 429 and 5xx (and network errors, time-outs) are worth a
 * retry; any other status means the provider refuses this payload for good. `dispatcher`: the egress proxy's, when one is
 * set (undefined: undici's default agent).
 */
export async function postBytes(url: string, label: string, headers: Record<string, string>, body: string | Uint8Array, timeoutMs: number, dispatcher?: Dispatcher): Promise<void> {
  const res = await request(url, {
    dispatcher,
    method: 'POST',
    headers,
    body,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  await res.body.dump();
  const status = res.statusCode;
  if (status >= 200 && status < 300) return;
  if (status === 408 || status === 429 || status >= 500) throw new Error(`${label}: HTTP ${status}`);
  throw new PermanentExportError(`${label}: HTTP ${status}`);
}
