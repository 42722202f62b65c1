import { describeConfig } from '@aduana/shared';
import { GATEWAY_CONFIG } from '../config.js';

/** The gateway's part of `aduana config` (docs/configuration.md is the whole output). */
export function configSection(): string {
  return ['## Gateway (`aduana gateway`: governance API, proxy, authentication service)', '', describeConfig(GATEWAY_CONFIG), ''].join('\n');
}
