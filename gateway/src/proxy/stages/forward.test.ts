import { describe, expect, it } from 'vitest';
import { proxyContext, type CallOptions } from '../../../test/helpers/proxy-context.js';
import type { EndpointKind, Provider } from '../endpoints.js';
import type { UpstreamClient, UpstreamResponse, UpstreamSink } from '../upstream/upstream-client.js';
import { forwardStage } from './forward.js';
import { parseIntentStage } from './parse-intent.js';

// What is handed to the upstream client, over a small context: the client itself (its pool, keys, headers) is
// exercised by the black-box proxy tests.

type Sent = Parameters<UpstreamClient['send']>[0];

class Upstream {
  readonly sent: { opts: Sent; sink: UpstreamSink }[] = [];
  readonly answer = new Promise<UpstreamResponse>(() => undefined);

  send(opts: Sent, sink: UpstreamSink): Promise<UpstreamResponse> {
    this.sent.push({ opts, sink });
    return this.answer;
  }
}

/** The same recording upstream for every provider. */
function both(upstream: Upstream): Readonly<Record<Provider, UpstreamClient>> {
  const u = upstream as unknown as UpstreamClient;
  return { openai: u, anthropic: u, azure: u, gemini: u };
}

function forward(kind: EndpointKind, o: CallOptions = {}) {
  const upstream = new Upstream();
  const c = proxyContext(kind, o);
  if (o.body !== undefined) parseIntentStage().run(c);
  const waiting = forwardStage(both(upstream)).run(c);
  expect(upstream.sent).toHaveLength(1);
  return { c, waiting, upstream, ...upstream.sent[0]! };
}

describe('forward stage', () => {
  it('sends the judged request object re-serialised, never the raw bytes, and returns the send for the runner to wait on', () => {
    const upstream = new Upstream();
    const c = proxyContext('chat', { body: '{"model":"m",  "messages":[{"role":"user","content":"\\u0061na@example.com"}]}' });
    parseIntentStage().run(c);
    // As redact-input leaves it.
    (c.request!['messages'] as { content: string }[])[0]!.content = '[REDACTED:EMAIL]';
    const waiting = forwardStage(both(upstream)).run(c);
    expect(waiting).toBe(upstream.answer);
    const { opts, sink } = upstream.sent[0]!;
    expect(opts.body?.toString()).toBe('{"model":"m","messages":[{"role":"user","content":"[REDACTED:EMAIL]"}]}');
    expect(c.upstreamBody).toBe(opts.body);
    expect(sink).toBe(c);
    expect(opts).toMatchObject({ method: 'POST', path: '/chat/completions', trace: c.http.trace });
  });

  it("posts each governed endpoint's body to its path; the models passthrough is a GET without one", () => {
    expect(forward('completions', { body: { model: 'm', prompt: 'p' } }).opts).toMatchObject({ method: 'POST', path: '/completions' });
    expect(forward('embeddings', { body: { model: 'm', input: 'x' } }).opts).toMatchObject({ method: 'POST', path: '/embeddings' });
    const models = forward('models');
    expect(models.opts).toMatchObject({ method: 'GET', path: '/models', body: null });
    expect(models.c.upstreamBody).toBeNull();
  });

  it("hands on the client's provider key and routing headers, and none it did not send", () => {
    const headers = { 'x-forwarded-authorization': 'Bearer sk-client', 'openai-organization': 'org-1', 'openai-project': 'proj-1' };
    const withThem = forward('models', { headers }).opts;
    expect(withThem.forwardedKey).toBe('Bearer sk-client');
    expect(withThem.extraHeaders).toEqual({ 'openai-organization': 'org-1', 'openai-project': 'proj-1' });
    const without = forward('models').opts;
    expect(without.forwardedKey).toBe('');
    expect(without.extraHeaders).toEqual({});
  });

  it('keeps the way to cancel the request for a client that leaves later, and uses it at once for one already gone', () => {
    const staying = forward('models');
    let aborts = 0;
    staying.opts.cancel(() => aborts++);
    expect(aborts).toBe(0);
    staying.c.cancelUpstream!();
    expect(aborts).toBe(1);

    const upstream = new Upstream();
    const c = proxyContext('models');
    c.http.aborted = true;
    forwardStage(both(upstream)).run(c);
    let gone = 0;
    upstream.sent[0]!.opts.cancel(() => gone++);
    expect(gone).toBe(1);
  });
});
