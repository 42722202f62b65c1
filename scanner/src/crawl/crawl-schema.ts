import { URL_SCHEMA } from '../routes/url-schema.js';

/** CrawlRequest (docs/scanner.md, "SEO crawl"): no extra properties; maxPages 1 to 10, default 5. */
export const CRAWL_REQUEST_SCHEMA = Object.freeze({
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: URL_SCHEMA,
    maxPages: { type: 'integer', minimum: 1, maximum: 10, default: 5 },
  },
});

export interface CrawlRequest {
  url: string;
  maxPages?: number;
}
