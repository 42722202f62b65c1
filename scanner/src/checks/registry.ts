import type { Check } from './check.js';
import { certificate } from './security/certificate.js';
import { contentTypeOptions } from './security/content-type-options.js';
import { cookies } from './security/cookies.js';
import { csp } from './security/csp.js';
import { frameAncestors } from './security/frame-ancestors.js';
import { hsts } from './security/hsts.js';
import { httpsRedirect } from './security/https-redirect.js';
import { https } from './security/https.js';
import { mixedContent } from './security/mixed-content.js';
import { formAction } from './security/form-action.js';
import { permissionsPolicy } from './security/permissions-policy.js';
import { referrerPolicy } from './security/referrer-policy.js';
import { securityTxt } from './security/security-txt.js';
import { sri } from './security/sri.js';
import { versionDisclosure } from './security/version-disclosure.js';
import { canonical } from './seo/canonical.js';
import { crawlableLinks } from './seo/crawlable-links.js';
import { h1 } from './seo/h1.js';
import { hreflang } from './seo/hreflang.js';
import { httpStatus } from './seo/http-status.js';
import { indexable } from './seo/indexable.js';
import { jsonLd } from './seo/json-ld.js';
import { lang } from './seo/lang.js';
import { linkText } from './seo/link-text.js';
import { metaDescription } from './seo/meta-description.js';
import { openGraph } from './seo/open-graph.js';
import { robotsTxt } from './seo/robots-txt.js';
import { sitemap } from './seo/sitemap.js';
import { title } from './seo/title.js';
import { buttonName } from './accessibility/button-name.js';
import { formLabels } from './accessibility/form-labels.js';
import { htmlLang } from './accessibility/html-lang.js';
import { imgAlt } from './accessibility/img-alt.js';
import { viewport } from './accessibility/viewport.js';
import { cacheHeaders } from './performance/cache-headers.js';
import { compression } from './performance/compression.js';
import { htmlWeight } from './performance/html-weight.js';
import { renderBlocking } from './performance/render-blocking.js';
import { ttfb } from './performance/ttfb.js';
import { aiCrawlers } from './aiDiscovery/ai-crawlers.js';
import { llmsTxt } from './aiDiscovery/llms-txt.js';
import { semanticHeadings } from './aiDiscovery/semantic-headings.js';
import { structuredData } from './aiDiscovery/structured-data.js';
import { agentCard } from './agentReadiness/agent-card.js';
import { apiCatalog } from './agentReadiness/api-catalog.js';
import { contentSignals } from './agentReadiness/content-signals.js';
import { contentWithoutJs } from './agentReadiness/content-without-js.js';
import { labelledControls } from './agentReadiness/labelled-controls.js';
import { linkHeaders } from './agentReadiness/link-headers.js';
import { llmsTxtValid } from './agentReadiness/llms-txt-valid.js';
import { markdownNegotiation } from './agentReadiness/markdown-negotiation.js';
import { mcpServerCard } from './agentReadiness/mcp-server-card.js';
import { oauthDiscovery } from './agentReadiness/oauth-discovery.js';
import { openapiDiscovery } from './agentReadiness/openapi-discovery.js';
import { robotsAiRules } from './agentReadiness/robots-ai-rules.js';
import { stableCanonical } from './agentReadiness/stable-canonical.js';
import { privacyPolicyLink } from './privacy/privacy-policy-link.js';
import { thirdPartyTrackers } from './privacy/third-party-trackers.js';

/** Every check, in report order. A plain array: adding a check is adding a file and a line here. */
export const CHECKS: readonly Check[] = Object.freeze([
  certificate,
  contentTypeOptions,
  cookies,
  csp,
  frameAncestors,
  hsts,
  httpsRedirect,
  https,
  mixedContent,
  formAction,
  permissionsPolicy,
  referrerPolicy,
  securityTxt,
  sri,
  versionDisclosure,
  canonical,
  crawlableLinks,
  h1,
  hreflang,
  httpStatus,
  indexable,
  jsonLd,
  lang,
  linkText,
  metaDescription,
  openGraph,
  robotsTxt,
  sitemap,
  title,
  buttonName,
  formLabels,
  htmlLang,
  imgAlt,
  viewport,
  cacheHeaders,
  compression,
  htmlWeight,
  renderBlocking,
  ttfb,
  aiCrawlers,
  llmsTxt,
  semanticHeadings,
  structuredData,
  agentCard,
  apiCatalog,
  contentSignals,
  contentWithoutJs,
  labelledControls,
  linkHeaders,
  llmsTxtValid,
  markdownNegotiation,
  mcpServerCard,
  oauthDiscovery,
  openapiDiscovery,
  robotsAiRules,
  stableCanonical,
  privacyPolicyLink,
  thirdPartyTrackers,
]);
