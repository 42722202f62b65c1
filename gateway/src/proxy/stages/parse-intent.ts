import { GatewayError } from '../../errors.js';
import { parseJsonBody } from '../../http/json-body.js';
import { requestText } from '../request-text.js';
import type { Stage } from './stage.js';

/** The provider request, parsed once: model, stream flag, and the text every policy reads. */
export function parseIntentStage(): Stage {
  return {
    name: 'parse-intent',
    run(c) {
      const raw = c.http.rawBody;
      if (!raw) throw new GatewayError('invalid_json', 'request body is empty');
      const body = parseJsonBody(raw);
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('invalid_request', 'request body must be a JSON object');
      const req = body as Record<string, unknown>;
      c.request = req;
      c.model = typeof req['model'] === 'string' ? req['model'] : '';
      c.stream = c.endpoint.streams === true || req['stream'] === true;
      const so = req['stream_options'] as Record<string, unknown> | undefined;
      c.clientWantsStreamUsage = so?.['include_usage'] === true;
      c.requestMedia = c.endpoint.requestMedia?.(req) ?? null;
      c.inputText = requestText(req, c.requestMedia);
    },
  };
}
