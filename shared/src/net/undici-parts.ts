import { createRequire } from 'node:module';
import type * as Undici from 'undici';

// undici's index loads the whole library on import: fetch, WebSocket, EventSource, the cache and mock layers, about a
// hundred modules. An idle gateway held ~4 MiB more for them, and its hot path needs only a dispatcher. These are
// undici's own classes, loaded from their files: the same module instances its index exports (a test checks that, so
// an upgrade that moves a file fails the tests rather than a deployment).
const load = createRequire(import.meta.url);

// What undici's index does when it loads: gives every dispatcher its request, stream, pipeline, connect and upgrade.
const Dispatcher = load('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
Object.assign(Dispatcher.prototype, load('undici/lib/api/index.js') as object);

export const Pool = load('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;
export type Pool = Undici.Pool;
export const Agent = load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const undiciErrors = load('undici/lib/core/errors.js') as typeof Undici.errors;

/**
 * undici's EnvHttpProxyAgent, loaded on first use: it brings the proxy agents (HTTP CONNECT, SOCKS) with it, and only a
 * process given an egress proxy needs them.
 */
export function envHttpProxyAgent(options: Undici.EnvHttpProxyAgent.Options): Undici.EnvHttpProxyAgent {
  const EnvHttpProxyAgent = load('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof Undici.EnvHttpProxyAgent;
  return new EnvHttpProxyAgent(options);
}

let whole: Promise<typeof Undici> | null = null;

/**
 * undici's `request`, which loads the rest of undici on its first call. Its callers (telemetry export, anchoring,
 * fleet shipping) run only when configured, so an embedded sidecar never loads it.
 */
export const request = ((url: Parameters<typeof Undici.request>[0], options?: Parameters<typeof Undici.request>[1]) => {
  whole ??= import('undici');
  return whole.then((undici) => undici.request(url, options));
}) as typeof Undici.request;

/** undici's `fetch`, loading the rest of undici on its first call (only a process that sends it through a proxy calls it). */
export const fetch = ((input: Parameters<typeof Undici.fetch>[0], init?: Parameters<typeof Undici.fetch>[1]) => {
  whole ??= import('undici');
  return whole.then((undici) => undici.fetch(input, init));
}) as typeof Undici.fetch;
