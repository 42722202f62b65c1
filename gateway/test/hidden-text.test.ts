import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { MockAnthropic } from './helpers/mock-anthropic.js';
import { MockGemini } from './helpers/mock-gemini.js';
import { MockResponses } from './helpers/mock-responses.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

/**
 * Nothing a sender writes makes text invisible to the policies (docs/policies.md, "What is judged"): a `data:` prefix,
 * a media type, a key named like a binary field. Every door (the proxy in every wire format, /v1/decide, events, MCP
 * arguments and results) sees text placed where media goes, as written or base64-encoded, and the request log, read
 * from its raw store, never holds such text unredacted.
 */
const EMAIL = 'bob@example.com';
const CARD = '4111 1111 1111 1111';
const WORD = 'forbidden-word';
const TEXT = `Please email ${EMAIL}, card ${CARD}, ${WORD}`;
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** The ways a sender might dress text up as media. */
const DISGUISES: Record<string, string> = {
  'a data: prefix on plain text': `data:text/plain;base64, ${TEXT}`,
  'base64 of text under a text type': `data:text/plain;base64,${b64(TEXT)}`,
  'base64 of text claiming to be an image': `data:image/png;base64,${b64(TEXT)}`,
};
/** Anthropic's and Gemini's media are bare base64 beside a media type. */
const BARE: Record<string, string> = { 'plain text': ` ${TEXT}`, 'base64 of text': b64(TEXT) };

let t: TestGateway;
let openai: MockResponses;
let azure: MockUpstream;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let mcp: McpTestServer;
let filtered: Awaited<ReturnType<TestGateway['tenant']>>;
let redacting: Awaited<ReturnType<TestGateway['tenant']>>;
const clients: Client[] = [];

/** Every text a string carries: itself, and what its base64 (bare or in a data URL) decodes to. */
function readable(s: string): string {
  const comma = s.startsWith('data:') ? s.indexOf(',') + 1 : 0;
  return `${s}\n${Buffer.from(s.slice(comma), 'base64').toString('utf8')}`;
}

/** Every text a JSON value carries, its base64 strings decoded. */
function readableJson(v: unknown): string {
  const out: string[] = [];
  JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'string') out.push(readable(x));
    return x;
  });
  return out.join('\n');
}

function expectNoneOf(text: string, what: string): void {
  expect(text, what).not.toContain(EMAIL);
  expect(text, what).not.toContain(CARD);
}

beforeAll(async () => {
  openai = await new MockResponses().start();
  azure = await new MockUpstream().start();
  anthropic = await new MockAnthropic().start();
  gemini = await new MockGemini().start();
  mcp = await new McpTestServer({
    extend(server) {
      server.registerTool('attachment', { description: 'Returns a file', inputSchema: { note: z.unknown().optional() } }, () => ({
        content: [
          { type: 'image', data: b64(TEXT), mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', blob: b64(TEXT) } },
        ],
      }));
      server.registerTool('picture', { description: 'Returns an image', inputSchema: {} }, () => ({
        content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
      }));
      server.registerResource('letter', 'crm://letter', { mimeType: 'text/plain' }, (uri) => ({
        contents: [{ uri: uri.href, mimeType: 'text/plain', blob: b64(TEXT) }],
      }));
    },
  }).start();
  t = await startTestGateway({
    upstreamBaseUrl: openai.baseUrl,
    upstreamAzureBaseUrl: azure.url.replace(/\/v1$/, ''),
    upstreamAnthropicBaseUrl: anthropic.url,
    upstreamGeminiBaseUrl: gemini.url,
    mcpUpstreams: JSON.stringify({ crm: mcp.url }),
    requestLogKey: '7c'.repeat(32),
  });
  filtered = await t.tenant('hidden-filtered');
  redacting = await t.tenant('hidden-redacting');
  const policy = async (token: string, body: Record<string, unknown>) => expect((await call(t.url, 'POST', '/v1/policies', { token, body })).status).toBe(200);
  await policy(filtered.admin, { name: 'word', type: 'content_filter', risk: 90, rules: { patterns: [WORD], action: 'DENY', target: 'both' } });
  await policy(redacting.admin, { name: 'pii', type: 'pii_redaction', risk: 10, rules: { action: 'REDACT', target: 'both' } });
  expect((await call(t.url, 'PUT', '/v1/settings/request-log', { token: redacting.admin, body: { enabled: true, sample_rate: 1 } })).status).toBe(200);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(async () => {
  await t?.close();
  for (const m of [openai, azure, anthropic, gemini, mcp]) await m?.close();
});

/** A PNG's first bytes: really an image, whose base64 the policies may leave out where the schema puts media. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex').toString('base64');

interface Door {
  /** The proxy path below /v1/proxy. */
  path: string;
  headers: Record<string, string>;
  body: (media: string) => Record<string, unknown>;
  /** What the provider received, the newest last. */
  received: () => unknown[];
  disguises: Record<string, string>;
  /** The error type a block is answered with, in the provider's error shape (the gateway's envelope's by default). */
  blockedType?: string;
}

const chat = (media: string) => ({
  model: 'gpt-4o',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: media } }, { type: 'file', file: { file_data: media, filename: 'a.txt' } }] }],
});
const DOORS: Record<string, Door> = {
  'OpenAI chat': { path: '/chat/completions', headers: {}, body: chat, received: () => [], disguises: DISGUISES },
  'Azure chat': { path: '/azure/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21', headers: {}, body: chat, received: () => azure.received.map((r) => r.body), disguises: DISGUISES },
  'OpenAI Responses': {
    path: '/responses',
    headers: {},
    body: (media) => ({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: media }, { type: 'input_file', file_data: media }] },
        { type: 'reasoning', summary: [], encrypted_content: media },
      ],
    }),
    received: () => openai.received.map((r) => r.body),
    disguises: DISGUISES,
  },
  Anthropic: {
    path: '/anthropic/v1/messages',
    headers: { 'anthropic-version': '2023-06-01', 'x-forwarded-api-key': 'sk-ant' },
    body: (media) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: media } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: media } },
          ],
        },
      ],
    }),
    received: () => anthropic.received.map((r) => r.body),
    disguises: BARE,
    blockedType: 'permission_error',
  },
  Gemini: {
    path: '/gemini/v1beta/models/gemini-2.0-flash:generateContent',
    headers: { 'x-forwarded-api-key': 'g-key' },
    body: (media) => ({ contents: [{ role: 'user', parts: [{ text: 'look' }, { inlineData: { mimeType: 'image/png', data: media } }, { inline_data: { mime_type: 'audio/wav', data: media } }] }] }),
    received: () => gemini.received.map((r) => r.body),
    disguises: BARE,
  },
};

const proxy = (token: string, door: Door, media: string) =>
  call(t.url, 'POST', `/v1/proxy${door.path}`, { token, headers: { 'x-svc-agent-id': 'hider', ...door.headers }, body: door.body(media) });

describe('the proxy: text placed where media goes is judged, in every wire format', () => {
  for (const [name, door] of Object.entries(DOORS)) {
    for (const [how, media] of Object.entries(door.disguises)) {
      it(`${name}, ${how}: a content filter refuses it before the provider sees it`, async () => {
        const before = door.received().length;
        const r = await proxy(filtered.operator, door, media);
        expectEnvelope(r, 403, door.blockedType ?? 'svc_policy_violation');
        expect(door.received().length).toBe(before);
      });

      // OpenAI chat's provider is the Responses mock here: Azure, the same format, shows what a provider receives.
      if (name === 'OpenAI chat') continue;
      it(`${name}, ${how}: personal data is redacted in what the provider receives`, async () => {
        const r = await proxy(redacting.operator, door, media);
        expect(r.status, r.text).toBe(200);
        const got = door.received().at(-1);
        const text = readableJson(got);
        expectNoneOf(text, `${name}: what the provider received`);
        expect(text).toContain('[REDACTED:');
      });
    }
  }

  it('real media is still left out: an image where the schema puts one is not judged as text', async () => {
    const png = `data:image/png;base64,${PNG}`;
    // A pattern that matches inside the image's base64: refused if the image were judged as text.
    const tok = await t.tenant('hidden-images');
    expect((await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'b64', type: 'content_filter', risk: 90, rules: { patterns: [PNG.slice(8, 24).replace(/[+/]/g, '.')], action: 'DENY' } } })).status).toBe(200);
    const r = await proxy(tok.operator, DOORS['Azure chat']!, png);
    expect(r.status, r.text).toBe(200);
    // The same bytes outside a media position (a tool's description) are text like any other.
    const body = { ...chat('x'), tools: [{ type: 'function', function: { name: 'f', description: png, parameters: { type: 'object' } } }] };
    expectEnvelope(await call(t.url, 'POST', '/v1/proxy/azure/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21', { token: tok.operator, headers: { 'x-svc-agent-id': 'hider' }, body }), 403, 'svc_policy_violation');
  });
});

describe('free JSON: decide payloads, events, MCP arguments', () => {
  const payload = (media: string) => ({ file_data: media, input_audio: { data: media }, attachment: { type: 'base64', data: media, mimeType: 'image/png' }, encrypted_content: media });

  for (const [how, media] of Object.entries(DISGUISES)) {
    it(`/v1/decide, ${how} under keys named like binary fields: refused`, async () => {
      const r = await call(t.url, 'POST', '/v1/decide', { token: filtered.operator, body: { agent_id: 'hider', action: { type: 'tool_call', target: 'upload', payload: payload(media) } } });
      expect(r.status).toBe(200);
      expect(r.body.envelope.execution_status).toBe('DENY');
    });

    it(`events, ${how}: the verdict is DENY`, async () => {
      const r = await call(t.url, 'POST', '/v1/events', { token: filtered.operator, body: { event_type: 'upload', payload: payload(media), metadata: { agent_id: 'hider' } } });
      expect(r.status).toBe(200);
      expect(r.body.envelope.execution_status).toBe('DENY');
    });

    it(`MCP tools/call arguments, ${how}: refused, and redacted for the server`, async () => {
      const refused = await connect(filtered.operator);
      await expect(refused.callTool({ name: 'attachment', arguments: { note: payload(media) } })).rejects.toThrow(/blocked|denied|policy/i);
      const toolCalls = () => mcp.received.filter((m) => (m.body as { method?: string } | undefined)?.method === 'tools/call');
      const before = toolCalls().length;
      const client = await connect(redacting.operator);
      await client.callTool({ name: 'attachment', arguments: { note: payload(media) } });
      expect(toolCalls().length).toBe(before + 1);
      const sent = JSON.stringify(toolCalls().at(-1)!.body);
      expectNoneOf(readableJson(JSON.parse(sent)), 'what the MCP server received');
      expect(readableJson(JSON.parse(sent))).toContain('[REDACTED:');
    });
  }
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/crm`), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-svc-agent-id': 'hider' } } }));
  clients.push(client);
  return client;
}

describe('MCP results: media blocks and blobs of text are judged', () => {
  it('a tool result whose image block and resource blob are base64 of text: refused by an output filter', async () => {
    const client = await connect(filtered.operator);
    await expect(client.callTool({ name: 'attachment', arguments: {} })).rejects.toThrow(/blocked by policy/);
  });

  it('the same result for a redacting tenant: the agent gets the blocks re-encoded, redacted', async () => {
    const client = await connect(redacting.operator);
    const r = await client.callTool({ name: 'attachment', arguments: {} });
    const text = readableJson(r.content);
    expectNoneOf(text, 'the tool result the agent got');
    expect(text).toContain('[REDACTED:EMAIL]');
    const blocks = r.content as { type: string; mimeType?: string; resource?: { mimeType: string } }[];
    expect(blocks.map((b) => b.type)).toEqual(['image', 'resource']);
    expect(blocks[1]!.resource!.mimeType).toBe('text/plain');
  });

  it('resources/read: a text blob is decoded and judged', async () => {
    await expect((await connect(filtered.operator)).readResource({ uri: 'crm://letter' })).rejects.toThrow(/blocked by policy/);
    const r = await (await connect(redacting.operator)).readResource({ uri: 'crm://letter' });
    expectNoneOf(readableJson(r.contents), 'the resource the agent got');
  });

  it('a real image in a result passes untouched: its base64 is not judged as text', async () => {
    const tok = await t.tenant('hidden-mcp-images');
    // A pattern that matches inside the image's base64: the result would be refused if the image were read as text.
    const pattern = PNG.slice(8, 24).replace(/[+/]/g, '.');
    expect((await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'b64', type: 'content_filter', risk: 90, rules: { patterns: [pattern], action: 'DENY', target: 'output' } } })).status).toBe(200);
    const r = await (await connect(tok.operator)).callTool({ name: 'picture', arguments: {} });
    expect(r.content).toEqual([{ type: 'image', data: PNG, mimeType: 'image/png' }]);
  });
});

describe('the request log', () => {
  it('read from its raw store, holds no text that skipped redaction', async () => {
    await t.gw.threadsCaughtUp();
    await t.gw.deps.store.root.flushed;
    const keys = [...t.gw.deps.store.requestSamples.getKeys({})] as [string, string][];
    const mine = keys.filter(([tenant]) => tenant === 'hidden-redacting');
    // Every redacting call above was sampled: 4 formats × their disguises, MCP calls and resources.
    expect(mine.length).toBeGreaterThanOrEqual(10);
    for (const [tenant, decision] of mine) {
      const found = t.gw.requestLog.log.lookup(tenant, decision);
      expect(found.kind).toBe('sampled');
      if (found.kind !== 'sampled') continue;
      for (const text of [found.sample.request, found.sample.answer]) {
        if (text === null) continue;
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // a stream's text
        }
        expectNoneOf(readableJson(parsed), `sample ${decision}`);
      }
    }
  });
});
