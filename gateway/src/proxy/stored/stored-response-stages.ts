import { GatewayError } from '../../errors.js';
import type { ResponseStage } from '../answer/response-stage.js';
import { storedResponseId } from '../wire/openai.js';
import type { ProxyContext } from '../proxy-context.js';
import type { Stage } from '../stages/stage.js';
import { assertInputItemsOwned, assertPromptAllowed } from './input-references.js';
import type { StoredPrompts } from './stored-prompts.js';
import type { StoredResponses } from './stored-responses.js';

/** The same answer for an id another tenant made and one nobody made: neither is told apart. */
function notYours(): GatewayError {
  return new GatewayError('not_found', 'no response with this id was made through this gateway by your tenant');
}

function assertOwned(stored: StoredResponses, c: ProxyContext, id: string): void {
  if (!stored.ownedBy(id, c.principal!.tenantId)) throw notYours();
}

/**
 * A call that names what the provider keeps (reads, deletes or lists a stored response by the id in its path, continues
 * one with `previous_response_id`, names input items by id, or a stored prompt) is refused unless the caller's tenant
 * made it (the prompt: unless it is listed for the tenant), before anything is sent. Whoever's provider key goes out:
 * the gateway cannot tell a key of the tenant's own from one another tenant shares.
 */
export function checkStoredStage(stored: StoredResponses, prompts: StoredPrompts): Stage {
  return {
    name: 'check-stored',
    run(c) {
      if (c.endpoint.readsStored === true) {
        assertOwned(stored, c, storedResponseId(c.http));
        return;
      }
      const req = c.request;
      if (req === null || c.endpoint.format.storedId === undefined) return;
      const previous = req['previous_response_id'];
      if (previous !== undefined && previous !== null) {
        if (typeof previous !== 'string') throw new GatewayError('invalid_request', 'previous_response_id: must be a string');
        assertOwned(stored, c, previous);
      }
      assertInputItemsOwned(req['input'], stored, c.principal!.tenantId);
      assertPromptAllowed(req['prompt'], prompts, c.principal!.tenantId);
    },
  };
}

/**
 * The id of a response the answer made (whole, or a stream's `response.created`), and the ids of the items it hands
 * out (a stream's as each is added), are remembered as the tenant's.
 */
export function rememberStoredStage(stored: StoredResponses): ResponseStage {
  return {
    name: 'remember-stored',
    onPiece(c, piece) {
      const format = c.endpoint.format;
      const id = format.storedId?.(piece.body);
      if (id) stored.remember(id, c.principal!.tenantId, c.http.agentId);
      const items = format.storedItemIds?.(piece.body);
      if (items === undefined) return;
      for (let i = 0; i < items.length; i++) stored.remember(items[i] as string, c.principal!.tenantId, c.http.agentId);
    },
  };
}

/** A response the provider deleted is nobody's any more. */
export function forgetDeletedStage(stored: StoredResponses): Stage {
  return {
    name: 'forget-deleted',
    run(c) {
      if (c.endpoint.method !== 'DELETE' || c.upstreamStatus < 200 || c.upstreamStatus >= 300) return;
      return stored.forget(storedResponseId(c.http), c.principal!.tenantId).then(() => undefined);
    },
  };
}
