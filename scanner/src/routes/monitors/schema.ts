import { ALL_PROFILES, type Profile } from '../../checks/check.js';
import { URL_SCHEMA } from '../url-schema.js';

/** MonitorCreate (docs/scanner.md, "Monitors"): no extra properties; cadenceHours 1 to 720, default 24. */
export const MONITOR_CREATE_SCHEMA = Object.freeze({
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: URL_SCHEMA,
    profile: { type: 'string', enum: ['auto', ...ALL_PROFILES], default: 'auto' },
    cadenceHours: { type: 'integer', minimum: 1, maximum: 720, default: 24 },
  },
});

export interface MonitorCreate {
  url: string;
  profile?: 'auto' | Profile;
  cadenceHours?: number;
}
