import type { FastifyReply, FastifyRequest } from 'fastify';
import { ScannerError } from '../errors.js';
import type { ScannerStore } from '../storage/scanner-store.js';
import { verifyKey, type KeyIdentity } from './key-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the key hook on KEY routes; null elsewhere. */
    apiKey: KeyIdentity | null;
  }
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The onRequest hook every KEY route plugin installs (`app.addHook('onRequest', requireKey(store))`): it runs
 * before the body is read, so an unauthenticated caller gets 401 whatever it sent. The route then finds the key
 * and its organisation in `request.apiKey`.
 */
export function requireKey(store: ScannerStore): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request) => {
    const match = BEARER.exec(request.headers.authorization ?? '');
    const identity = match?.[1] === undefined ? undefined : verifyKey(store, match[1]);
    if (identity === undefined) throw new ScannerError('unauthorized');
    request.apiKey = identity;
  };
}

/** The identity a KEY route runs as; only callable behind requireKey. */
export function keyOf(request: FastifyRequest): KeyIdentity {
  if (request.apiKey === null) throw new ScannerError('unauthorized');
  return request.apiKey;
}
