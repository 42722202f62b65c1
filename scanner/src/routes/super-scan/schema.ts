import { ALL_PROFILES, type Profile } from '../../checks/check.js';
import { URL_SCHEMA } from '../url-schema.js';

/** ScanRequest (docs/decisions.md, "Resources"): no extra properties allowed. */
export const SCAN_REQUEST_SCHEMA = Object.freeze({
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: URL_SCHEMA,
    profile: { type: 'string', enum: ['auto', ...ALL_PROFILES], default: 'auto' },
  },
});

export interface ScanRequest {
  url: string;
  profile?: 'auto' | Profile;
}
