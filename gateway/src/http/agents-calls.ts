import type { RelayedRoute } from '../threads/relay/relay-protocol.js';

/**
 * The calls agents make, which read nothing a request thread writes and must not wait for it: every other route (the
 * admin's and the console's reads and writes) first waits until what the request threads handed the ledger's writer
 * and wrote themselves is committed (`RequestThreads.barrier`), so what a request thread answered is what a read made
 * after it finds.
 */
const AGENTS_CALLS = [/^post \/v1\/decide$/, /^\w+ \/v1\/proxy\//, /^\w+ \/v1\/mcp\//, /^post \/v1\/heartbeat$/, /^post \/v1\/events(\/ingest\/batch)?$/];

export function readsThreadsWrites(route: Pick<RelayedRoute, 'method' | 'pattern'>): boolean {
  const key = `${route.method} ${route.pattern}`;
  return !AGENTS_CALLS.some((r) => r.test(key));
}
