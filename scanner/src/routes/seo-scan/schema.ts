import { URL_SCHEMA } from '../url-schema.js';

/** SeoScanRequest (docs/decisions.md, "Resources"): unlike ScanRequest, extra properties are not forbidden, so they are ignored. The keyword limit is the documented 200 characters. */
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
