import type { HttpResponse } from 'uWebSockets.js';
import { GatewayError } from '../errors.js';

/** Rejection reason when the client went away while its body was being read (nothing to answer). */
export const CLIENT_ABORTED = new Error('client aborted');

/**
 * Reads a request body up to `maxBytes`. A Content-Length over the cap is refused before any byte is read; a body
 * that grows past it is refused as soon as it does. uWS hands out chunks that are only valid inside the callback,
 * so each one is copied.
 */
export function readBody(res: HttpResponse, maxBytes: number, contentLength: number, abortHook?: { onAbort: (() => void) | null }): Promise<Buffer> {
  if (contentLength > maxBytes) return Promise.reject(new GatewayError('payload_too_large'));
  return new Promise((resolve, reject) => {
    // A client that leaves mid-body must not leave this promise pending forever.
    if (abortHook) abortHook.onAbort = () => reject(CLIENT_ABORTED);
    let chunks: Buffer[] | null = null;
    let first: Buffer | null = null;
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > maxBytes) {
        failed = true;
        reject(new GatewayError('payload_too_large'));
        return;
      }
      const copy = Buffer.from(new Uint8Array(chunk));
      if (isLast) {
        if (!first) return resolve(copy);
        (chunks ??= [first]).push(copy);
        return resolve(Buffer.concat(chunks, size));
      }
      if (!first) first = copy;
      else (chunks ??= [first]).push(copy);
    });
  });
}
