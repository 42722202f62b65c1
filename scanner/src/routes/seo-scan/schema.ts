import { URL_SCHEMA } from '../url-schema.js';

/** SeoScanRequest (spec "Resources"): unlike ScanRequest the spec does not forbid extra properties, so they are ignored. The keyword limit is the spec's 200 characters. */
export const SEO_SCAN_REQUEST_SCHEMA = Object.freeze({
  type: 'object',
  required: ['url'],
  properties: {
    url: URL_SCHEMA,
    keyword: { type: 'string', minLength: 1, maxLength: 200 },
  },
});

export interface SeoScanRequest {
  url: string;
  keyword?: string;
}
