import { TokenBuckets } from '@aduana/shared';
import { clientKey } from '../clients/client-key.js';
import type { ScannerConfig } from '../config.js';
import { ScannerError } from '../errors.js';
import { sharedPlugin } from './shared-plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    readonly rateLimits: RateLimits;
  }
}

/** The three assessment limits (docs/scanner.md): per client address, per target host, whole platform. */
export interface RateLimits {
  /** Takes one assessment from the client's bucket (IPv6 by /64) and the platform's, or throws the first 429. */
  takeClient(clientIp: string): void;
  /**
   * Takes one assessment of a target host, or throws 429. Called once the target is known to be valid and fetchable
   * (the guard accepted the page's first hop), so refused requests cannot use up a host's budget.
   */
  takeTarget(hostname: string): void;
}

/** One host however it is spelled: lower case, no trailing dot, no IPv6 brackets (URL already made IDNs punycode). */
export function targetKey(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

export function createRateLimits(config: ScannerConfig, now: () => number = Date.now): RateLimits {
  const perIp = new TokenBuckets({ capacity: config.ratePerIpPerMinute, refillPerSecond: config.ratePerIpPerMinute / 60 }, now);
  const perTarget = new TokenBuckets({ capacity: config.ratePerTargetPerHour, refillPerSecond: config.ratePerTargetPerHour / 3600 }, now);
  const platform = new TokenBuckets({ capacity: config.ratePlatformPerMinute, refillPerSecond: config.ratePlatformPerMinute / 60, maxKeys: 1 }, now);
  return {
    takeClient(clientIp) {
      // Cheapest refusal first: the caller's own bucket, so one noisy client cannot drain the shared one.
      const ip = perIp.take(clientKey(clientIp));
      if (!ip.allowed) throw new ScannerError('rate_limited_ip', ip.retryAfterS);
      const all = platform.take('platform');
      if (!all.allowed) throw new ScannerError('rate_limited_platform', all.retryAfterS);
    },
    takeTarget(hostname) {
      const target = perTarget.take(targetKey(hostname));
      if (!target.allowed) throw new ScannerError('rate_limited_target', target.retryAfterS);
    },
  };
}

/** Decorates the app with `rateLimits`, made once from the config. */
export const rateLimitsPlugin = sharedPlugin<{ config: ScannerConfig; now?: () => number }>('rate-limits', async (app, { config, now }) => {
  app.decorate('rateLimits', createRateLimits(config, now));
});
