import { Redis } from 'ioredis';
import type { Logger } from '@aduana/shared';
import { parseRedisUrl } from './redis-url.js';
import { restoreFastStringPrototype } from './string-prototype.js';

restoreFastStringPrototype();

export interface RedisConnectionOptions {
  url: string;
  /** A command not answered within this is failed (and the limit falls back to local), ms. */
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  /** Longest pause between reconnection attempts, ms. */
  reconnectMaxMs: number;
}

/**
 * The Redis client of the shared limits, built to fail fast (docs/fleet.md, "Shared limits"): no offline queue and no
 * retry of a command (a command while disconnected fails at once), short command and connect timeouts, and
 * reconnection in the background for as long as the process runs. Callers check `ready` before sending anything.
 */
export class RedisConnection {
  readonly client: Redis;
  /** null until the first connection attempt ends either way. */
  #reachable: boolean | null = null;

  constructor(options: RedisConnectionOptions, logger: Logger) {
    parseRedisUrl(options.url);
    this.client = new Redis(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: options.connectTimeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, options.reconnectMaxMs),
      // Reconnection is retryStrategy's job; nothing else reconnects on a command error.
      reconnectOnError: null,
    });
    // Logged once per change (reachable or not), not once per reconnection attempt.
    this.client.on('ready', () => {
      if (this.#reachable !== true) logger.info('redis connected: limits are shared');
      this.#reachable = true;
    });
    const down = (err?: Error) => {
      if (this.#reachable !== false) logger.warn({ err: err?.message }, 'redis unreachable: limits are local until it returns');
      this.#reachable = false;
    };
    this.client.on('error', down);
    this.client.on('close', () => down());
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  async close(): Promise<void> {
    try {
      if (this.ready) await this.client.quit();
    } catch {
      // Quitting a connection that just dropped: nothing to wait for.
    } finally {
      this.client.disconnect();
    }
  }
}
