import { describe, expect, it } from 'vitest';
import { proxyContext } from '../../../test/helpers/proxy-context.js';
import type { EndpointKind } from '../endpoints.js';
import { parseIntentStage } from './parse-intent.js';
import { requestUsageStage } from './request-usage.js';

// A stream's usage asked for when budgets would otherwise not see it, over a small parsed context.

const stage = requestUsageStage();

function sent(kind: EndpointKind, body: Record<string, unknown>): Record<string, unknown> {
  const c = proxyContext(kind, { body });
  parseIntentStage().run(c);
  stage.run(c);
  return c.request!;
}

const CHAT = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

describe('request-usage stage', () => {
  it("asks a stream for its usage when the client did not, keeping the client's other stream options", () => {
    expect(sent('chat', { ...CHAT, stream: true })['stream_options']).toEqual({ include_usage: true });
    expect(sent('completions', { model: 'm', prompt: 'p', stream: true })['stream_options']).toEqual({ include_usage: true });
    expect(sent('chat', { ...CHAT, stream: true, stream_options: { include_usage: false, other: 1 } })['stream_options']).toEqual({ include_usage: true, other: 1 });
    for (const so of [null, 'yes', 3]) expect(sent('chat', { ...CHAT, stream: true, stream_options: so })['stream_options']).toEqual({ include_usage: true });
  });

  it('leaves the request as the client sent it when usage was asked for already, or nothing streams', () => {
    const untouched: [EndpointKind, Record<string, unknown>][] = [
      ['chat', { ...CHAT, stream: true, stream_options: { include_usage: true, other: 1 } }],
      ['chat', CHAT],
      ['chat', { ...CHAT, stream: false }],
      ['completions', { model: 'm', prompt: 'p' }],
    ];
    for (const [kind, body] of untouched) expect(sent(kind, structuredClone(body))).toEqual(body);
    // Not even rebuilt alike: the client's own stream options go out.
    const c = proxyContext('chat', { body: untouched[0]![1] });
    parseIntentStage().run(c);
    const asked = c.request!['stream_options'];
    stage.run(c);
    expect(c.request!['stream_options']).toBe(asked);
  });

  it('never adds stream options to embeddings', () => {
    expect(sent('embeddings', { model: 'm', input: 'x', stream: true })).not.toHaveProperty('stream_options');
  });
});
