import { URL_SCHEMA } from '../routes/url-schema.js';

/**
 * GrowthRequest, the body of both report endpoints (docs/scanner.md, "Reports"): no extra properties; keyword at most
 * 200 characters, keywords at most 50 of at most 100 each, agency at most 120.
 */
export const GROWTH_REQUEST_SCHEMA = Object.freeze({
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: URL_SCHEMA,
    keyword: { type: 'string', maxLength: 200 },
    keywords: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 100 } },
    agency: { type: 'string', maxLength: 120 },
  },
});

export interface GrowthRequest {
  url: string;
  keyword?: string;
  keywords?: string[];
  agency?: string;
}
