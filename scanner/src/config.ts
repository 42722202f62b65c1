import { loadConfig, type ConfigSpec, type ConfigValues } from '@aduana/shared';
import type { JudgingLimits } from './checks/judging-limits.js';

/** Every setting of the scanner: env name, type, default (docs/decisions.md). Read and validated once at start. */
export const SCANNER_CONFIG = {
  port: { env: 'SCANNER_PORT', type: 'integer', default: 8082, minimum: 0, maximum: 65535, description: 'Port of the site assessment service' },
  host: { env: 'HOST', type: 'string', default: '127.0.0.1', description: 'Address the service listens on' },
  dataDir: { env: 'DATA_DIR', type: 'string', default: './data', description: 'Data directory (one LMDB environment per service)' },
  allowPrivate: { env: 'SCANNER_ALLOW_PRIVATE', type: 'string', default: '', description: 'Comma-separated CIDRs assessed despite being private (tests: 127.0.0.0/8); empty in production' },
  publicHostnames: { env: 'PUBLIC_HOSTNAMES', type: 'string', default: '', description: 'Comma-separated host names of this service; assessing them is refused as self-audit' },
  trustProxy: { env: 'SCANNER_TRUST_PROXY', type: 'string', default: '', description: 'Proxies in front of the service: a hop count (true = 1) or comma-separated proxy addresses/CIDRs; the client address is read from X-Forwarded-For through them only. Empty: none' },
  fetchTimeoutMs: { env: 'SCANNER_FETCH_TIMEOUT_MS', type: 'integer', default: 10_000, minimum: 100, maximum: 60_000, description: 'Time-out of the page fetch, redirects and body included' },
  maxBodyBytes: { env: 'SCANNER_MAX_BODY_BYTES', type: 'integer', default: 5 * 1024 * 1024, minimum: 1024, description: 'Cap on the fetched page body; longer bodies are cut' },
  maxRedirects: { env: 'SCANNER_MAX_REDIRECTS', type: 'integer', default: 5, minimum: 0, maximum: 20, description: 'Redirects followed by the page fetch, each re-checked' },
  bodyLimitBytes: { env: 'SCANNER_BODY_LIMIT_BYTES', type: 'integer', default: 1024 * 1024, minimum: 1024, description: 'Largest API request body; over it: 413' },
  ratePerIpPerMinute: { env: 'SCANNER_RATE_PER_IP_PER_MINUTE', type: 'integer', default: 10, minimum: 1, description: 'Assessments per client address per minute' },
  ratePerTargetPerHour: { env: 'SCANNER_RATE_PER_TARGET_PER_HOUR', type: 'integer', default: 30, minimum: 1, description: 'Assessments per target host per hour' },
  ratePlatformPerMinute: { env: 'SCANNER_RATE_PLATFORM_PER_MINUTE', type: 'integer', default: 600, minimum: 1, description: 'Assessments per minute, whole service' },
  maxInFlight: { env: 'SCANNER_MAX_IN_FLIGHT', type: 'integer', default: 8, minimum: 1, maximum: 1_000, description: 'Assessments collected or judged, crawls and observations running at once; past it: 429 with Retry-After' },
  maxHtmlElements: { env: 'SCANNER_MAX_HTML_ELEMENTS', type: 'integer', default: 100_000, minimum: 100, description: 'Elements parsed from one page; past it the checks that read the markup are not measured' },
  maxHtmlDepth: { env: 'SCANNER_MAX_HTML_DEPTH', type: 'integer', default: 512, minimum: 16, maximum: 10_000, description: 'Element nesting depth of one page; past it the checks that read the markup are not measured' },
  judgingBudgetMs: { env: 'SCANNER_JUDGING_BUDGET_MS', type: 'integer', default: 5_000, minimum: 100, maximum: 60_000, description: 'Time for judging one snapshot; checks not started by then are not measured' },
  robotsMaxRules: { env: 'SCANNER_ROBOTS_MAX_RULES', type: 'integer', default: 2_000, minimum: 10, description: 'Allow/Disallow rules read from one robots.txt; later rules are ignored' },
  robotsMaxRuleLength: { env: 'SCANNER_ROBOTS_MAX_RULE_LENGTH', type: 'integer', default: 1_024, minimum: 16, description: 'Longest robots.txt rule path read; longer rules count as invalid lines' },
  evidenceMaxChars: { env: 'SCANNER_EVIDENCE_MAX_CHARS', type: 'integer', default: 1_000, minimum: 100, maximum: 100_000, description: 'Longest evidence string of an assessment or SEO audit; longer ones are cut with "…"' },
  evidenceMaxItems: { env: 'SCANNER_EVIDENCE_MAX_ITEMS', type: 'integer', default: 50, minimum: 1, maximum: 10_000, description: 'Most entries of one evidence list (headings, hreflang, Open Graph tags, signals)' },
  crawlMaxLinkChecks: { env: 'SCANNER_CRAWL_MAX_LINK_CHECKS', type: 'integer', default: 50, minimum: 0, maximum: 500, description: 'HEAD checks of same-site links an SEO crawl did not visit, for broken links' },
  crawlMaxLinksPerPage: { env: 'SCANNER_CRAWL_MAX_LINKS_PER_PAGE', type: 'integer', default: 1_000, minimum: 10, maximum: 100_000, description: 'Links read from one crawled page; later ones are ignored' },
  chromiumPath: { env: 'SCANNER_CHROMIUM_PATH', type: 'string', default: '/usr/bin/chromium', description: 'Chromium for rendered-page observations (Debian package chromium; `bash scripts/system-packages.sh` installs it). The service starts without it' },
  observeBudgetMs: { env: 'SCANNER_OBSERVE_BUDGET_MS', type: 'integer', default: 30_000, minimum: 5_000, maximum: 120_000, description: 'Time for one rendered-page observation, navigation to screenshot' },
  observeSettleMs: { env: 'SCANNER_OBSERVE_SETTLE_MS', type: 'integer', default: 5_000, minimum: 0, maximum: 60_000, description: 'After the load event, longest wait for the network to go quiet before the metrics are read' },
  observeMaxConsoleErrors: { env: 'SCANNER_OBSERVE_MAX_CONSOLE_ERRORS', type: 'integer', default: 50, minimum: 0, maximum: 1_000, description: 'Console errors kept from one observation' },
  secretKey: { env: 'SCANNER_SECRET_KEY', type: 'string', default: '', description: 'Key that encrypts webhook signing secrets at rest (AES-256-GCM): 64 hex characters. Empty: webhook creation answers 503' },
  keyDailyQuota: { env: 'SCANNER_KEY_DAILY_QUOTA', type: 'integer', default: 1_000, minimum: 1, description: 'Assessments (reports included) one API key may run per UTC day; past it: 429 with Retry-After' },
  keyCrawlsPerHour: { env: 'SCANNER_KEY_CRAWLS_PER_HOUR', type: 'integer', default: 5, minimum: 1, description: 'SEO crawls one API key may run per clock hour' },
  keyRenderingsPerHour: { env: 'SCANNER_KEY_RENDERINGS_PER_HOUR', type: 'integer', default: 10, minimum: 1, description: 'Browser renderings one API key may run per clock hour' },
  keyMonitorCreationsPerHour: { env: 'SCANNER_KEY_MONITOR_CREATIONS_PER_HOUR', type: 'integer', default: 30, minimum: 1, description: 'Monitors one API key may create per clock hour; past it: 429 with Retry-After' },
  maxMonitorsPerOrg: { env: 'SCANNER_MAX_MONITORS_PER_ORG', type: 'integer', default: 100, minimum: 1, description: 'Monitors one organisation may have, active or recently deleted (a deleted one counts until its next run would have started, 24 h at most); past it monitor creation answers 400' },
  maxWebhooksPerOrg: { env: 'SCANNER_MAX_WEBHOOKS_PER_ORG', type: 'integer', default: 20, minimum: 1, description: 'Active webhooks one organisation may have; past it webhook creation answers 400' },
  schedulerTickMs: { env: 'SCANNER_SCHEDULER_TICK_MS', type: 'integer', default: 30_000, minimum: 20, maximum: 3_600_000, description: 'How often the monitor scheduler looks for due monitors' },
  monitorLeaseMs: { env: 'SCANNER_MONITOR_LEASE_MS', type: 'integer', default: 600_000, minimum: 1_000, description: 'How long a claimed monitor run is held by its process before another may take the monitor again' },
  webhookTimeoutMs: { env: 'SCANNER_WEBHOOK_TIMEOUT_MS', type: 'integer', default: 10_000, minimum: 50, maximum: 60_000, description: 'Time-out of one webhook delivery attempt, connection and answer included' },
  webhookRetryFirstMs: { env: 'SCANNER_WEBHOOK_RETRY_FIRST_MS', type: 'integer', default: 1_000, minimum: 0, maximum: 600_000, description: 'Wait before the second delivery attempt (after a network error or a 5xx)' },
  webhookRetrySecondMs: { env: 'SCANNER_WEBHOOK_RETRY_SECOND_MS', type: 'integer', default: 4_000, minimum: 0, maximum: 600_000, description: 'Wait before the third and last delivery attempt' },
  overviewRecent: { env: 'SCANNER_OVERVIEW_RECENT', type: 'integer', default: 10, minimum: 1, maximum: 100, description: 'Recent executions listed by GET /api/v1/overview' },
  logLevel: { env: 'LOG_LEVEL', type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], description: 'pino log level' },
} as const satisfies ConfigSpec;

export type ScannerConfig = ConfigValues<typeof SCANNER_CONFIG>;

/** The scanner's configuration from the environment; `overrides` win (tests, the CLI). Throws ConfigError naming the key. */
export function loadScannerConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: Partial<Record<keyof typeof SCANNER_CONFIG, string | number | boolean>> = {},
): ScannerConfig {
  return loadConfig(SCANNER_CONFIG, env, overrides);
}

/** The judging caps of one assessment, from the configuration. */
export function judgingLimitsOf(config: ScannerConfig): JudgingLimits {
  return {
    maxElements: config.maxHtmlElements,
    maxDepth: config.maxHtmlDepth,
    budgetMs: config.judgingBudgetMs,
    robotsMaxRules: config.robotsMaxRules,
    robotsMaxRuleLength: config.robotsMaxRuleLength,
    evidenceMaxChars: config.evidenceMaxChars,
    evidenceMaxItems: config.evidenceMaxItems,
  };
}

/** A comma-separated setting as a list, blanks dropped. */
export function listSetting(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
