/** @aduana/scanner: the site assessment service (docs/scanner.md). */
export { createScannerApp, type ScannerAppOptions } from './app.js';
export { startScanner, type RunningScanner } from './server.js';
export { SCANNER_CONFIG, loadScannerConfig, type ScannerConfig } from './config.js';
export { ERRORS, ScannerError, type ErrorCode } from './errors.js';
export { assess, type AssessOptions, type AssessOutcome } from './assessment/assess.js';
export type { Assessment, Finding, DimensionScore, PillarScore, CriticalIssue, CommerceRisk } from './assessment/assessment.js';
export { CHECKS } from './checks/registry.js';
export { runChecks, type CheckResult, type CheckStatus } from './checks/runner.js';
export { Derived } from './checks/derived.js';
export type { Check, Verdict, Profile, Dimension, Pillar, Severity } from './checks/check.js';
export { SCORING_VERSION } from './scoring/scoring.js';
export { seoAudit, type SeoAudit } from './seo/seo-audit.js';
export type { Snapshot, Probe, PageProbe } from './snapshot/snapshot.js';
export { crawlSite, crawlDepsOf, CRAWL_REQUEST_SCHEMA, type CrawlDeps, type CrawlOptions, type CrawlRequest, type CrawlResult, type CrawledPage } from './crawl/index.js';
export { observePage, BrowserHost, GuardProxy, type ObserveDeps, type Observation, type BrowserHostOptions } from './observe/index.js';
export { renderPaidMediaReport, renderGrowthReport, reportTerms, landingSignals, GROWTH_REQUEST_SCHEMA, type GrowthRequest, type LandingSignals, type ReportInput } from './report/index.js';
