import { ConfigError, parseAllowList, type AllowList } from '@aduana/shared';
import { collectSnapshot, type CollectOptions } from '../collect/index.js';
import { listSetting, type ScannerConfig } from '../config.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    readonly snapshots: SnapshotSource;
  }
}

/** What one request adds to a collection: its cancellation, and the vetting of every hop (see CollectOptions). */
export type CollectRequest = Pick<CollectOptions, 'signal' | 'onHop'>;

/** Where snapshots come from. The app gets one at start; tests may add collector options (a CA, the http port). */
export interface SnapshotSource {
  collect(url: string, request?: CollectRequest): Promise<Snapshot>;
}

export function createSnapshotSource(config: ScannerConfig, extra: Partial<CollectOptions> = {}): SnapshotSource {
  // Parsed once: a bad CIDR stops start-up instead of failing every request.
  let allowPrivate: AllowList;
  try {
    allowPrivate = parseAllowList(listSetting(config.allowPrivate));
  } catch (err) {
    throw new ConfigError('allowPrivate', 'SCANNER_ALLOW_PRIVATE', err instanceof Error ? err.message : String(err));
  }
  const options: CollectOptions = {
    allowPrivate,
    timeoutMs: config.fetchTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    maxRedirects: config.maxRedirects,
    ...extra,
  };
  return { collect: (url, request = {}) => collectSnapshot(url, { ...options, ...request }) };
}

/** Decorates the app with `snapshots`: the real collector, or the source a test hands in. */
export const snapshotSourcePlugin = sharedPlugin<{ config: ScannerConfig; collect?: Partial<CollectOptions>; source?: SnapshotSource }>(
  'snapshot-source',
  async (app, { config, collect, source }) => {
    app.decorate('snapshots', source ?? createSnapshotSource(config, collect));
  },
);
