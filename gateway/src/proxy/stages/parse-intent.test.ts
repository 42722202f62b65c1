import { describe, expect, it } from 'vitest';
import { proxyContext, refusal } from '../../../test/helpers/proxy-context.js';
import type { EndpointKind } from '../endpoints.js';
import { parseIntentStage } from './parse-intent.js';

// The provider request parsed once, over a small context: what later stages read of it.

const stage = parseIntentStage();

function parsed(kind: EndpointKind, body: unknown) {
  const c = proxyContext(kind, { body });
  expect(stage.run(c)).toBeUndefined();
  return c;
}

const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] };

describe('parse-intent stage', () => {
  it('reads the model, and the text of every string but the model name', () => {
    const c = parsed('chat', { ...CHAT, tools: [{ type: 'function', function: { name: 'lookup', description: 'finds a record' } }] });
    expect(c.request).toEqual(JSON.parse(c.http.rawBody!.toString()));
    expect(c.model).toBe('gpt-4o-mini');
    expect(c.inputText.split('\n')).toEqual(expect.arrayContaining(['hello there', 'lookup', 'finds a record']));
    expect(c.inputText).not.toContain('gpt-4o-mini');
  });

  it('reads the text of a completion prompt and of embeddings input', () => {
    expect(parsed('completions', { model: 'm', prompt: ['first', 'second'] }).inputText.split('\n')).toEqual(expect.arrayContaining(['first', 'second']));
    expect(parsed('embeddings', { model: 'm', input: 'embed me' }).inputText.split('\n')).toContain('embed me');
  });

  it('is a stream only when `stream` is true, and wants usage in it only when include_usage is true', () => {
    const cases: [Record<string, unknown>, boolean, boolean][] = [
      [{}, false, false],
      [{ stream: false }, false, false],
      [{ stream: 'true' }, false, false],
      [{ stream: true }, true, false],
      [{ stream: true, stream_options: { include_usage: false } }, true, false],
      [{ stream: true, stream_options: { include_usage: 'yes' } }, true, false],
      [{ stream: true, stream_options: null }, true, false],
      [{ stream: true, stream_options: { include_usage: true } }, true, true],
    ];
    for (const [extra, stream, usage] of cases) {
      const c = parsed('chat', { ...CHAT, ...extra });
      expect({ extra, stream: c.stream, usage: c.clientWantsStreamUsage }).toEqual({ extra, stream, usage });
    }
  });

  it('leaves the model empty when it is not a string (preflight refuses it)', () => {
    expect(parsed('chat', { ...CHAT, model: 42 }).model).toBe('');
    expect(parsed('chat', { messages: CHAT.messages }).model).toBe('');
  });

  it('refuses a body that is absent, empty or not JSON with invalid_json', () => {
    for (const body of [undefined, '', '{"model":']) {
      const c = proxyContext('chat', { body });
      const err = refusal(() => stage.run(c));
      expect({ body, code: err.code, status: err.status }).toEqual({ body, code: 'invalid_json', status: 400 });
      expect(c.request).toBeNull();
    }
  });

  it('refuses JSON that is not an object, and an object with a duplicate key, with invalid_request', () => {
    for (const body of ['[]', '"text"', 'null', '42', '{"model":"a","model":"b","messages":[]}']) {
      const c = proxyContext('chat', { body });
      const err = refusal(() => stage.run(c));
      expect({ body, code: err.code }).toEqual({ body, code: 'invalid_request' });
      expect(c.request).toBeNull();
    }
  });
});
