import { TokenBuckets } from '@aduana/shared';
import type { ScannerConfig } from '../config.js';
import { ScannerError } from '../errors.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    readonly rateLimits: RateLimits;
  }
}

/** The three assessment limits (DECISIONS.md): per client address, per target host, whole platform. */
export interface RateLimits {
  /** Takes one assessment from every bucket, or throws the 429 of the first that is empty. */
  take(clientIp: string, targetHost: string): void;
}

export function createRateLimits(config: ScannerConfig, now: () => number = Date.now): RateLimits {
  const perIp = new TokenBuckets({ capacity: config.ratePerIpPerMinute, refillPerSecond: config.ratePerIpPerMinute / 60 }, now);
  const perTarget = new TokenBuckets({ capacity: config.ratePerTargetPerHour, refillPerSecond: config.ratePerTargetPerHour / 3600 }, now);
  const platform = new TokenBuckets({ capacity: config.ratePlatformPerMinute, refillPerSecond: config.ratePlatformPerMinute / 60, maxKeys: 1 }, now);
  return {
    take(clientIp, targetHost) {
      // Cheapest refusal first: the caller's own bucket, so one noisy client cannot drain the shared ones.
      const ip = perIp.take(clientIp);
      if (!ip.allowed) throw new ScannerError('rate_limited_ip', ip.retryAfterS);
      const target = perTarget.take(targetHost.toLowerCase());
      if (!target.allowed) throw new ScannerError('rate_limited_target', target.retryAfterS);
      const all = platform.take('platform');
      if (!all.allowed) throw new ScannerError('rate_limited_platform', all.retryAfterS);
    },
  };
}

/** Decorates the app with `rateLimits`, made once from the config. */
export const rateLimitsPlugin = sharedPlugin<{ config: ScannerConfig; now?: () => number }>('rate-limits', async (app, { config, now }) => {
  app.decorate('rateLimits', createRateLimits(config, now));
});
