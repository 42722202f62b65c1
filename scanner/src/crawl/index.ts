export { crawlSite, type CrawlDeps, type CrawlOptions } from './crawl-site.js';
export { crawlDepsOf } from './crawl-deps.js';
export { CRAWL_REQUEST_SCHEMA, type CrawlRequest } from './crawl-schema.js';
export type * from './crawl-types.js';
