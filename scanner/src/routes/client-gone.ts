import type { FastifyReply } from 'fastify';
import { ScannerError } from '../errors.js';

/** A signal aborted when the client goes away before the answer; `done()` stops listening. */
export function whileClientWaits(reply: FastifyReply): { readonly signal: AbortSignal; done(): void } {
  const gone = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) gone.abort(new ScannerError('client_closed'));
  };
  reply.raw.once('close', onClose);
  return { signal: gone.signal, done: () => reply.raw.off('close', onClose) };
}
