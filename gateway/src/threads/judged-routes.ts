import type { RelayedRoute } from './relay/relay-protocol.js';

type Route = Pick<RelayedRoute, 'method' | 'pattern'>;

/**
 * The routes a request thread answers itself when it judges requests (request-thread-gateway.ts); it relays every
 * other one to the main thread.
 */
const JUDGED = new Set(['post /v1/decide']);

/**
 * The calls agents make, which read nothing a request thread writes and must not wait for it: every other route (the
 * admin's and the console's reads and writes) first waits until what the request threads handed the ledger's writer
 * is committed (`RequestThreads.barrier`), so what a request thread answered is what a read made after it finds.
 */
const AGENTS_CALLS = [/^post \/v1\/decide$/, /^\w+ \/v1\/proxy\//, /^\w+ \/v1\/mcp\//, /^post \/v1\/heartbeat$/, /^post \/v1\/events(\/ingest\/batch)?$/];

export function isJudgedRoute(route: Route): boolean {
  return JUDGED.has(`${route.method} ${route.pattern}`);
}

export function readsThreadsWrites(route: Route): boolean {
  const key = `${route.method} ${route.pattern}`;
  return !AGENTS_CALLS.some((r) => r.test(key));
}
