import { GatewayError } from '../../errors.js';
import { hasTokenIds } from '../request-text.js';
import type { Stage } from './stage.js';

/**
 * The shape the provider requires, checked before anything is spent on it: a model, and the endpoint's input field of
 * the right type. A body the provider would reject anyway is answered here with a clear 400.
 */
export function preflightStage(maxModelLength: number): Stage {
  return {
    name: 'preflight',
    run(c) {
      const req = c.request as Record<string, unknown>;
      // Gemini names the model in the path; the others in the body (Azure's may leave it to the deployment).
      if (c.endpoint.modelOf) c.model = c.endpoint.modelOf(c.http);
      else if (req['model'] === undefined && c.endpoint.fallbackModelOf) c.model = c.endpoint.fallbackModelOf(c.http);
      else if (typeof req['model'] !== 'string' || req['model'] === '') throw new GatewayError('invalid_request', 'model: required string');
      // The model name goes into the ledger entry: capped here, before the call is acted on (docs/ledger.md).
      if (c.model.length > maxModelLength) throw new GatewayError('invalid_request', `model: at most ${maxModelLength} characters`);
      if ('stream' in req && typeof req['stream'] !== 'boolean') throw new GatewayError('invalid_request', 'stream: must be a boolean');
      // Azure's endpoints take OpenAI's bodies; their path is checked here too, before anything is judged.
      const kind = c.endpoint.kind;
      const shape = kind === 'azure.chat' ? 'chat' : kind === 'azure.embeddings' ? 'embeddings' : kind;
      if (c.endpoint.pathOf) c.upstreamPath = c.endpoint.pathOf(c.http);
      switch (shape) {
        case 'chat':
          assertMessages(req['messages']);
          break;
        case 'completions': {
          const p = req['prompt'];
          if (typeof p !== 'string' && !Array.isArray(p)) throw new GatewayError('invalid_request', 'prompt: required string or array');
          break;
        }
        case 'embeddings': {
          const i = req['input'];
          if (typeof i !== 'string' && !Array.isArray(i)) throw new GatewayError('invalid_request', 'input: required string or array');
          if (c.stream) throw new GatewayError('invalid_request', 'stream: embeddings do not stream');
          break;
        }
        case 'responses': {
          const input = req['input'];
          if (typeof input !== 'string' && !Array.isArray(input)) throw new GatewayError('invalid_request', 'input: required string or array');
          if ('instructions' in req && req['instructions'] !== null && typeof req['instructions'] !== 'string') throw new GatewayError('invalid_request', 'instructions: must be a string');
          // The answer of a background response is read later, by polling or a webhook the gateway never sees: it
          // would reach the agent unjudged. A conversation's items were written outside the gateway, by anyone holding
          // the provider key: the model would read them unjudged, across tenants.
          if (req['background'] === true) throw new GatewayError('invalid_request', 'background: not proxied (its answer would be read outside the gateway); leave it unset');
          if (req['conversation'] !== undefined && req['conversation'] !== null) throw new GatewayError('invalid_request', 'conversation: not proxied (its items are not governed); chain turns with previous_response_id');
          break;
        }
        case 'anthropic.messages':
        case 'anthropic.count_tokens': {
          assertMessages(req['messages']);
          if (c.endpoint.kind === 'anthropic.messages' && (!Number.isInteger(req['max_tokens']) || (req['max_tokens'] as number) < 1)) {
            throw new GatewayError('invalid_request', 'max_tokens: required positive integer');
          }
          if (c.endpoint.kind === 'anthropic.count_tokens' && c.stream) throw new GatewayError('invalid_request', 'stream: count_tokens does not stream');
          break;
        }
        case 'gemini.generateContent':
        case 'gemini.streamGenerateContent': {
          const contents = req['contents'];
          if (!Array.isArray(contents) || contents.length === 0) throw new GatewayError('invalid_request', 'contents: required non-empty array');
          break;
        }
        case 'gemini.countTokens':
          if (!Array.isArray(req['contents']) && (req['generateContentRequest'] === null || typeof req['generateContentRequest'] !== 'object')) {
            throw new GatewayError('invalid_request', 'contents or generateContentRequest: required');
          }
          break;
        case 'gemini.embedContent':
          if (req['content'] === null || typeof req['content'] !== 'object') throw new GatewayError('invalid_request', 'content: required object');
          break;
        case 'gemini.batchEmbedContents':
          if (!Array.isArray(req['requests']) || req['requests'].length === 0) throw new GatewayError('invalid_request', 'requests: required non-empty array');
          break;
        case 'models':
          break;
      }
      // Token ids cannot be judged: with input policies active they are refused rather than let through unread.
      if (c.policySet!.readsInputText && hasTokenIds(shape === 'completions' ? req['prompt'] : shape === 'embeddings' ? req['input'] : null)) {
        throw new GatewayError('invalid_request', `${shape === 'completions' ? 'prompt' : 'input'}: token-id arrays cannot be judged by this tenant's input policies; send text`);
      }
      const sid = c.sessionHeader;
      if (sid.length > 256) throw new GatewayError('invalid_request', 'x-svc-session-id: at most 256 characters');
      c.sessionId = sid;
    },
  };
}

/** A non-empty array of messages, each an object with a role (OpenAI's and Anthropic's alike). */
function assertMessages(m: unknown): void {
  if (!Array.isArray(m) || m.length === 0) throw new GatewayError('invalid_request', 'messages: required non-empty array');
  for (let i = 0; i < m.length; i++) {
    const msg = m[i] as Record<string, unknown> | null;
    if (!msg || typeof msg !== 'object' || typeof msg['role'] !== 'string') throw new GatewayError('invalid_request', `messages[${i}]: must be an object with a role`);
  }
}
