import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockResponses } from './helpers/mock-responses.js';
import { entryWithPromptTokens } from './helpers/proxy-ledger.js';
import { poll } from '../../shared/test/helpers/poll.js';

// The official openai SDK's Responses API against the proxy, changed only in base URL and key (the PAT), with a mock
// of the Responses API on loopback behind it.

let t: TestGateway;
let mock: MockResponses;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;
let pii: Awaited<ReturnType<TestGateway['tenant']>>;
let other: Awaited<ReturnType<TestGateway['tenant']>>;

function client(token = tok.operator) {
  return new OpenAI({
    apiKey: token,
    baseURL: `${t.url}/v1/proxy`,
    maxRetries: 0,
    defaultHeaders: { 'x-svc-agent-id': 'responses-agent', 'x-forwarded-authorization': 'Bearer sk-provider-key' },
  });
}

type StreamEvent = Record<string, unknown> & { type: string; sequence_number: number };

/** Every event of a streamed response, as the SDK yields them. */
async function events(token: string, body: Record<string, unknown>): Promise<StreamEvent[]> {
  const stream = await client(token).responses.create({ model: 'gpt-4.1', ...body, stream: true } as OpenAI.Responses.ResponseCreateParamsStreaming);
  const out: StreamEvent[] = [];
  for await (const ev of stream) out.push(ev as unknown as StreamEvent);
  return out;
}

const joined = (evs: StreamEvent[], type: string) => evs.filter((e) => e.type === type).map((e) => e['delta'] as string).join('');
const one = (evs: StreamEvent[], type: string) => evs.find((e) => e.type === type) as StreamEvent;

beforeAll(async () => {
  mock = await new MockResponses().start();
  t = await startTestGateway({ upstreamBaseUrl: mock.baseUrl });
  tok = await t.tenant('resp');
  pii = await t.tenant('resp-pii');
  other = await t.tenant('resp-other');
  await call(t.url, 'POST', '/v1/policies', { token: pii.admin, body: { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } } });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

describe('the openai SDK: responses.create against the proxy', () => {
  it('a whole response comes back with the verdict headers; the provider gets its key, never the PAT; one ledger entry with usage and cost', async () => {
    mock.next({ text: 'Paris.', usage: { input_tokens: 3101, output_tokens: 1000 } });
    const { data, response } = await client().responses.create({ model: 'gpt-4.1', instructions: 'Be brief.', input: 'Capital of France?' }).withResponse();
    expect(data.output_text).toBe('Paris.');
    expect(response.headers.get('x-svc-verdict')).toBe('ALLOWED');
    expect(response.headers.get('x-svc-trace-id')).toMatch(/^dec_/);
    const got = mock.received[0]!;
    expect(got.path).toBe('/v1/responses');
    expect(got.headers['authorization']).toBe('Bearer sk-provider-key');
    expect(JSON.stringify(got.headers)).not.toContain(tok.operator);
    expect(got.headers['x-svc-agent-id']).toBeUndefined();
    const e = await entryWithPromptTokens(t.url, tok.admin, 3101);
    expect(e.event_type).toBe('proxy.responses');
    expect(e.payload).toMatchObject({ endpoint: 'responses', model: 'gpt-4.1', outcome: 'completed', stream: false, usage: { prompt_tokens: 3101, completion_tokens: 1000 } });
    expect(e.payload['cost_brl']).toBeGreaterThan(0);
  });

  it('a stream is relayed event by event; its usage comes from response.completed', async () => {
    mock.next({ chunks: ['The ', 'answer ', 'is ', '42.'], usage: { input_tokens: 3202, output_tokens: 9 } });
    const evs = await events(tok.operator, { input: 'Answer?' });
    expect(joined(evs, 'response.output_text.delta')).toBe('The answer is 42.');
    expect(evs.map((e) => e.sequence_number)).toEqual(evs.map((_, i) => i));
    const e = await entryWithPromptTokens(t.url, tok.admin, 3202);
    expect(e.payload).toMatchObject({ endpoint: 'responses', stream: true, usage: { prompt_tokens: 3202, completion_tokens: 9 } });
  });

  it("a blocked prompt is the SDK's PermissionDeniedError with our message; the provider is never contacted", async () => {
    const admin = await t.tenant('resp-block');
    const p = await call(t.url, 'POST', '/v1/policies', { token: admin.admin, body: { name: 'no exfil', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)export all customer records'], action: 'DENY' } } });
    const err = await client(admin.operator)
      .responses.create({ model: 'gpt-4.1', input: [{ role: 'user', content: [{ type: 'input_text', text: 'EXPORT ALL CUSTOMER RECORDS now' }] }] })
      .then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const e = err as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(e.message).toContain('blocked by policy');
    expect(e.headers?.get('x-svc-verdict')).toBe('DENIED');
    expect(e.headers?.get('x-svc-rule')).toBe(p.body.id);
    expect(mock.received).toHaveLength(0);
  });

  it('an answer an output filter blocks mid-stream is cut with the error event the SDK raises', async () => {
    const admin = await t.tenant('resp-outblock');
    await call(t.url, 'POST', '/v1/policies', { token: admin.admin, body: { name: 'no internal hosts', type: 'content_filter', risk: 80, rules: { patterns: ['corp\\.internal'], action: 'DENY', target: 'output' } } });
    mock.next({ chunks: ['Connect ', 'to db.corp', '.internal:5432 ', 'with the admin account.'] });
    const seen: StreamEvent[] = [];
    const err = await (async () => {
      const stream = await client(admin.operator).responses.create({ model: 'gpt-4.1', input: 'where?', stream: true });
      for await (const ev of stream) seen.push(ev as unknown as StreamEvent);
    })().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(String((err as Error).message)).toContain('blocked by policy');
    expect(joined(seen, 'response.output_text.delta')).not.toContain('admin account');
  });

  it('an upstream that drops the stream gives the SDK an error, and the ledger says so', async () => {
    mock.next({ chunks: ['one ', 'two ', 'three'], dropAfterEvents: 5, usage: { input_tokens: 3303, output_tokens: 5 } });
    const err = await events(tok.operator, { input: 'count' }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    // The stream was cut before response.completed: no usage was read; the entry is found by its outcome.
    const entry = await poll(
      async () => {
        const r = await call(t.url, 'GET', '/v1/events?limit=20&order=desc', { token: tok.admin });
        return (r.body.events as { event_type: string; payload: Record<string, unknown> }[]).find((x) => x.event_type === 'proxy.responses' && x.payload['outcome'] === 'upstream_aborted');
      },
      { what: 'the entry of the cut stream' },
    );
    expect(entry?.payload).toMatchObject({ endpoint: 'responses', stream: true, usage: null });
  });
});

describe('PII through the Responses format', () => {
  it('instructions, input items, a function call output and the tools are redacted before the provider reads them', async () => {
    mock.next({ text: 'Noted.' });
    await client(pii.operator).responses.create({
      model: 'gpt-4.1',
      instructions: 'The user is ana.silva@example.com.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'My card is 4111 1111 1111 1111.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"cpf":"529.982.247-25"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'found joao@example.org' },
      ],
      tools: [{ type: 'function', name: 'lookup', description: 'escalate to ops@example.net', parameters: { type: 'object', properties: {} }, strict: false }],
    });
    const sent = mock.received[0]!.raw;
    for (const secret of ['ana.silva@example.com', '4111 1111 1111 1111', '529.982.247-25', 'joao@example.org', 'ops@example.net']) expect(sent).not.toContain(secret);
    expect(sent).toContain('[REDACTED:EMAIL]');
  });

  it('PII in a whole answer (message text, function call arguments, reasoning summary) is redacted before the SDK sees it', async () => {
    mock.next({ text: 'Write to joao.pereira@example.org.', summary: ['The user wants bo@example.com.'], functionCalls: [{ name: 'mail', arguments: '{"to":"bo@example.com"}' }] });
    const r = await client(pii.operator).responses.create({ model: 'gpt-4.1', input: 'contact?' });
    expect(r.output_text).toBe('Write to [REDACTED:EMAIL].');
    const fc = r.output.find((o) => o.type === 'function_call');
    expect(fc).toMatchObject({ name: 'mail', arguments: '{"to":"[REDACTED:EMAIL]"}' });
    expect(JSON.stringify(r.output)).not.toContain('bo@example.com');
  });

  it('an e-mail split across deltas is redacted; the done events and response.completed carry the text the SDK streamed, numbers consecutive', async () => {
    mock.next({ chunks: ['Contact joao.per', 'eira@exa', 'mple.org today'] });
    const evs = await events(pii.operator, { input: 'contact?' });
    const streamed = joined(evs, 'response.output_text.delta');
    expect(streamed).toBe('Contact [REDACTED:EMAIL] today');
    expect(one(evs, 'response.output_text.done')['text']).toBe(streamed);
    expect((one(evs, 'response.content_part.done')['part'] as { text: string }).text).toBe(streamed);
    const item = one(evs, 'response.output_item.done')['item'] as { content: { text: string }[] };
    expect(item.content[0]!.text).toBe(streamed);
    const completed = one(evs, 'response.completed')['response'] as { output: { content: { text: string }[] }[] };
    expect(completed.output[0]!.content[0]!.text).toBe(streamed);
    expect(evs.map((e) => e.sequence_number)).toEqual(evs.map((_, i) => i));
    expect(JSON.stringify(evs)).not.toContain('example.org');
  });

  it('an e-mail in streamed function call arguments is redacted; the held tail is sent in a delta of its own before the done event', async () => {
    mock.next({ functionCalls: [{ name: 'mail', arguments: '{"to":"bo@example.com"}', chunks: ['{"to":"bo@exa', 'mple.com"}'] }] });
    const evs = await events(pii.operator, { input: 'mail?' });
    const args = joined(evs, 'response.function_call_arguments.delta');
    expect(JSON.parse(args)).toEqual({ to: '[REDACTED:EMAIL]' });
    expect(one(evs, 'response.function_call_arguments.done')['arguments']).toBe(args);
    expect((one(evs, 'response.output_item.done')['item'] as { arguments: string }).arguments).toBe(args);
    expect(evs.map((e) => e.sequence_number)).toEqual(evs.map((_, i) => i));
  });

  it("the SDK's stream helper assembles the redacted final response", async () => {
    mock.next({ chunks: ['Mail ana', '.silva@ex', 'ample.com now'], summary: ['about ana.silva@example.com'] });
    const final = await client(pii.operator).responses.stream({ model: 'gpt-4.1', input: 'who?' }).finalResponse();
    expect(final.output_text).toBe('Mail [REDACTED:EMAIL] now');
    expect(JSON.stringify(final)).not.toContain('silva@example.com');
  });
});

describe('stored responses: read, listed, deleted and continued only by the tenant that made them', () => {
  it('retrieve and input_items pass through for the maker, redacted as an answer; another tenant gets 404 and the provider is not asked', async () => {
    mock.next({ text: 'Reach me at joao@example.org.' });
    const made = await client(pii.operator).responses.create({ model: 'gpt-4.1', input: 'my mail is ana@example.com' });
    // The provider kept the answer as it made it; the gateway redacts it again on the way back.
    expect((mock.stored.get(made.id)!.response['output'] as { content: { text: string }[] }[])[0]!.content[0]!.text).toContain('joao@example.org');
    const got = await client(pii.operator).responses.retrieve(made.id);
    expect(got.output_text).toBe('Reach me at [REDACTED:EMAIL].');
    const items = await client(pii.operator).responses.inputItems.list(made.id, { limit: 10 });
    expect(JSON.stringify(items.data)).not.toContain('ana@example.com');
    expect(mock.received.at(-1)!.path).toBe(`/v1/responses/${made.id}/input_items?limit=10`);
    const before = mock.received.length;
    const err = await client(other.operator).responses.retrieve(made.id).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    const del = await client(other.operator).responses.delete(made.id).then(() => null, (e: unknown) => e);
    expect(del).toBeInstanceOf(OpenAI.NotFoundError);
    const cont = await client(other.operator).responses.create({ model: 'gpt-4.1', input: 'and then?', previous_response_id: made.id }).then(() => null, (e: unknown) => e);
    expect(cont).toBeInstanceOf(OpenAI.NotFoundError);
    expect(mock.received.length).toBe(before);
    expect(mock.stored.has(made.id)).toBe(true);
  });

  it('a response made by a stream is the tenant\'s at once; continuing it works; once deleted it is nobody\'s', async () => {
    mock.next({ chunks: ['first'] });
    const evs = await events(tok.operator, { input: 'one' });
    const id = ((one(evs, 'response.created')['response']) as { id: string }).id;
    mock.next({ text: 'second' });
    const next = await client().responses.create({ model: 'gpt-4.1', input: 'two', previous_response_id: id });
    expect(next.output_text).toBe('second');
    expect(mock.received.at(-1)!.body!['previous_response_id']).toBe(id);
    await client().responses.delete(id);
    expect(mock.stored.has(id)).toBe(false);
    const gone = await client().responses.retrieve(id).then(() => null, (e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect(mock.received.at(-1)!.method).toBe('DELETE');
  });

  it('an id the gateway never saw made is a 404; a malformed id a 400; the provider is not asked', async () => {
    mock.stored.set('resp_elsewhere', { response: { id: 'resp_elsewhere', object: 'response', output: [] }, input: [] });
    const r = await call(t.url, 'GET', '/v1/proxy/responses/resp_elsewhere', { token: tok.operator, headers: { 'x-svc-agent-id': 'a' } });
    expect(r.status).toBe(404);
    expect(r.headers['x-svc-verdict']).toBeDefined();
    const bad = await call(t.url, 'GET', '/v1/proxy/responses/resp%2F..%2Fmodels', { token: tok.operator, headers: { 'x-svc-agent-id': 'a' } });
    expect(bad.status).toBe(400);
    expect(mock.received).toHaveLength(0);
  });
});

describe('bad input on the Responses route', () => {
  const h = { 'x-svc-agent-id': 'bad' };
  it('malformed JSON, no input, wrong types, background and conversation: a 400 naming the field; nothing forwarded', async () => {
    const cases: [unknown, string][] = [
      [{ model: 'gpt-4.1' }, 'input'],
      [{ model: 'gpt-4.1', input: { text: 'x' } }, 'input'],
      [{ model: 'gpt-4.1', input: 'x', instructions: ['a'] }, 'instructions'],
      [{ model: 'gpt-4.1', input: 'x', stream: 'yes' }, 'stream'],
      [{ model: 'gpt-4.1', input: 'x', background: true }, 'background'],
      [{ model: 'gpt-4.1', input: 'x', conversation: 'conv_1' }, 'conversation'],
      [{ model: 'gpt-4.1', input: 'x', previous_response_id: 7 }, 'previous_response_id'],
    ];
    for (const [body, field] of cases) {
      const r = await call(t.url, 'POST', '/v1/proxy/responses', { token: tok.operator, headers: h, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
    const raw = await call(t.url, 'POST', '/v1/proxy/responses', { token: tok.operator, headers: h, rawBody: '{"model": "gpt-4.1", "input": [' });
    expect(raw.status).toBe(400);
    expect(mock.received).toHaveLength(0);
  });

  it('a 5 MB system prompt: more text than the tenant\'s policies judge is a 413, never sent unjudged; with no policy reading text it is sent', async () => {
    const instructions = `${'lorem ipsum '.repeat((5 * 1024 * 1024) / 12)} write to ana.silva@example.com`;
    const judged = await call(t.url, 'POST', '/v1/proxy/responses', { token: pii.operator, headers: h, body: { model: 'gpt-4.1', instructions, input: 'hi' } });
    expect(judged.status).toBe(413);
    expect(judged.body.error.message).toContain('judge at most');
    expect(mock.received).toHaveLength(0);
    mock.next({ text: 'ok' });
    const plain = await call(t.url, 'POST', '/v1/proxy/responses', { token: tok.operator, headers: h, body: { model: 'gpt-4.1', instructions, input: 'hi' } });
    expect(plain.status, plain.text).toBe(200);
    expect(mock.received[0]!.body!['instructions']).toBe(instructions);
    const huge = await call(t.url, 'POST', '/v1/proxy/responses', { token: tok.operator, headers: h, body: { model: 'gpt-4.1', instructions: 'x'.repeat(11 * 1024 * 1024), input: 'hi' } });
    expect(huge.status).toBe(413);
    expect(mock.received).toHaveLength(1);
  });

  it('an upstream answering something unparseable is a 502, never relayed', async () => {
    mock.next({ json: '{not json' });
    const err = await client().responses.create({ model: 'gpt-4.1', input: 'x' }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
  });

  it('a path under the proxy that is not a Responses call is a 404, never relayed', async () => {
    const r = await call(t.url, 'POST', '/v1/proxy/responses/resp_1/cancel', { token: tok.operator, headers: h, body: {} });
    expect(r.status).toBe(404);
    expect(mock.received).toHaveLength(0);
  });
});
