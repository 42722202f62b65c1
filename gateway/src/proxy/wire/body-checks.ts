import { GatewayError } from '../../errors.js';
import type { ProxyContext } from '../proxy-context.js';
import { hasTokenIds } from '../request-text.js';

/** A non-empty array of messages, each an object with a role (OpenAI's and Anthropic's alike). */
export function assertMessages(m: unknown): void {
  if (!Array.isArray(m) || m.length === 0) throw new GatewayError('invalid_request', 'messages: required non-empty array');
  for (let i = 0; i < m.length; i++) {
    const msg = m[i] as Record<string, unknown> | null;
    if (!msg || typeof msg !== 'object' || typeof msg['role'] !== 'string') throw new GatewayError('invalid_request', `messages[${i}]: must be an object with a role`);
  }
}

/** A string or an array (a prompt, an input), named `field` when it is neither. */
export function assertStringOrArray(value: unknown, field: string): void {
  if (typeof value !== 'string' && !Array.isArray(value)) throw new GatewayError('invalid_request', `${field}: required string or array`);
}

/** Token ids cannot be judged: with input policies active they are refused rather than let through unread. */
export function refuseTokenIds(value: unknown, field: string, c: ProxyContext): void {
  if (c.policySet!.readsInputText && hasTokenIds(value)) {
    throw new GatewayError('invalid_request', `${field}: token-id arrays cannot be judged by this tenant's input policies; send text`);
  }
}
