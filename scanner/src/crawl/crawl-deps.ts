import type { NetGuard } from '@aduana/shared';
import { COLLECT_DEFAULTS } from '../collect/collect-snapshot.js';
import type { ScannerConfig } from '../config.js';
import type { CrawlDeps } from './crawl-site.js';

/** The crawl's settings from the configuration, around the guard the service already built. */
export function crawlDepsOf(config: ScannerConfig, guard: NetGuard, signal?: AbortSignal): CrawlDeps {
  return {
    guard,
    userAgent: COLLECT_DEFAULTS.userAgent,
    fetchTimeoutMs: config.fetchTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    maxLinkChecks: config.crawlMaxLinkChecks,
    maxLinksPerPage: config.crawlMaxLinksPerPage,
    robots: { robotsMaxRules: config.robotsMaxRules, robotsMaxRuleLength: config.robotsMaxRuleLength },
    ...(signal === undefined ? {} : { signal }),
  };
}
