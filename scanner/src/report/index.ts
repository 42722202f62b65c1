export { renderGrowthReport, renderPaidMediaReport, reportTerms, type ReportInput } from './render-report.js';
export { GROWTH_REQUEST_SCHEMA, type GrowthRequest } from './report-schema.js';
export { landingSignals, AD_TAGS, type AdTag, type LandingSignals } from './landing-signals.js';
