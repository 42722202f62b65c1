import { GatewayError } from '../../errors.js';
import type { StoredPrompts } from './stored-prompts.js';
import type { StoredResponses } from './stored-responses.js';

type Json = Record<string, unknown>;

/** The same answer for an item another tenant was handed and one nobody made: neither is told apart. */
function notYours(field: string): GatewayError {
  return new GatewayError('not_found', `${field}: no item with this id was made through this gateway by your tenant`);
}

/**
 * The items a Responses request's `input` names by id, each of which the provider looks up in what it keeps under the
 * shared key: an `item_reference` (its `type` may be left out: `{id}` alone), any item passed back with its `id` (a
 * reasoning item's hidden content is read from the store by it), and the request an MCP approval answers
 * (`approval_request_id`). Each must be an item the caller's tenant was handed (an output item of its call, or an
 * input item it listed); otherwise the call is refused before anything is sent.
 */
export function assertInputItemsOwned(input: unknown, stored: StoredResponses, tenant: string): void {
  if (!Array.isArray(input)) return;
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as Json | null;
    if (item === null || typeof item !== 'object') continue;
    const id = item['id'];
    if (id !== undefined && id !== null) {
      if (typeof id !== 'string') throw new GatewayError('invalid_request', `input[${i}].id: must be a string`);
      if (!stored.ownedBy(id, tenant)) throw notYours(`input[${i}]`);
    } else if (item['type'] === 'item_reference') {
      throw new GatewayError('invalid_request', `input[${i}].id: required string`);
    }
    if (item['type'] === 'mcp_approval_response') {
      const request = item['approval_request_id'];
      if (typeof request !== 'string') throw new GatewayError('invalid_request', `input[${i}].approval_request_id: required string`);
      if (!stored.ownedBy(request, tenant)) throw notYours(`input[${i}].approval_request_id`);
    }
  }
}

/**
 * A stored prompt (`prompt.id`) is named only where OPENAI_PROMPTS lists it for the caller's tenant: its text was
 * written outside the gateway and is never judged. Any other id is a 404, as an item not the tenant's is.
 */
export function assertPromptAllowed(prompt: unknown, prompts: StoredPrompts, tenant: string): void {
  if (prompt === undefined || prompt === null) return;
  const id = typeof prompt === 'object' && !Array.isArray(prompt) ? (prompt as Json)['id'] : undefined;
  if (typeof id !== 'string') throw new GatewayError('invalid_request', 'prompt.id: required string');
  if (!prompts.allows(tenant, id)) throw new GatewayError('not_found', 'prompt.id: no stored prompt with this id is allowed for your tenant (OPENAI_PROMPTS)');
}
