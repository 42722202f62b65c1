import { URL_SCHEMA } from '../url-schema.js';

/** ScanRequest (spec "Resources"): no extra properties allowed. */
export const SCAN_REQUEST_SCHEMA = Object.freeze({
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: URL_SCHEMA,
    profile: { type: 'string', enum: ['auto', 'content', 'api', 'commerce'], default: 'auto' },
  },
});

export interface ScanRequest {
  url: string;
  profile?: 'auto' | 'content' | 'api' | 'commerce';
}
