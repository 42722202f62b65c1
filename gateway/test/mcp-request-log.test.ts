import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../shared/test/helpers/poll.js';
import type { RequestSample } from '../src/request-log/request-sample.js';
import { signInToConsole } from './helpers/console-sign-in.js';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

/**
 * The sampled request log covers MCP tool calls (docs/console.md, "Request log"): the arguments as sent to the server
 * after input redaction and the result as returned to the agent after output redaction, sealed at rest, shown on the
 * decision page; a refused call keeps no arguments, a result the gateway replaced is not kept; log off, nothing kept.
 * The official MCP SDK on both sides of a real gateway, real LMDB, real Chromium.
 */
const PASSWORD = 'mcp request log password 1';
const KEY = '6b'.repeat(32);
const EMAIL = 'ana.souza@example.com';
const CPF = '529.982.247-25';
/** What the test server's lookup_customer puts in every result. */
const RESULT_EMAIL = 'maria.souza@example.com';

let server: McpTestServer;
/** The same server answering whole JSON bodies rather than SSE streams. */
let jsonServer: McpTestServer;
let t: TestGateway;
let other: Awaited<ReturnType<TestGateway['tenant']>>;
let browser: Browser;
const open: Client[] = [];
const pageProblems: string[] = [];

async function connect(token: string, name = 'crm'): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/${name}`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, 'x-svc-agent-id': 'mcp-log-agent' } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

type LedgerEntry = { event_type: string; metadata: Record<string, unknown>; payload: Record<string, unknown> };

/** The decision id of the newest tools/call of `tool` with this outcome in the tenant's ledger. */
async function decisionOf(token: string, tool: string, outcome: string, seen: ReadonlySet<string> = new Set()): Promise<string> {
  const e = (await poll(
    async () => {
      const r = await call(t.url, 'GET', '/v1/events?limit=50&order=desc', { token });
      return (r.body.events as LedgerEntry[]).find((x) => x.event_type === 'mcp.tools.call' && x.payload['tool'] === tool && x.payload['outcome'] === outcome && !seen.has(x.metadata['decision_id'] as string));
    },
    { what: `the ledger entry of the ${tool} call` },
  )) as LedgerEntry;
  return e.metadata['decision_id'] as string;
}

const samplesStored = (): number => [...t.gw.deps.store.requestSamples.getKeys({})].length;

/** The sample, once its asynchronous write is visible. */
async function sampleOf(decisionId: string): Promise<RequestSample> {
  const found = await poll(() => t.gw.requestLog.log.lookup('default', decisionId), { what: `the sample of ${decisionId}`, until: (l) => l.kind === 'sampled' });
  if (found.kind !== 'sampled') throw new Error(found.kind);
  return found.sample;
}

/** Every byte of the gateway's LMDB environment, as on disk. */
function lmdbBytes(): Buffer {
  const dir = join(t.dataDir, 'gateway');
  return Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
}

const setLog = async (body: Record<string, unknown>) => {
  const r = await call(t.url, 'PUT', '/v1/settings/request-log', { token: t.adminToken, body });
  expect(r.status, r.text).toBe(200);
};

beforeAll(async () => {
  server = await new McpTestServer().start();
  jsonServer = await new McpTestServer({ json: true }).start();
  t = await startTestGateway({ passwordScryptLogN: 12, requestLogKey: KEY, mcpUpstreams: JSON.stringify({ crm: { url: server.url }, 'crm-json': { url: jsonServer.url } }) });
  other = await t.tenant('other');
  expect((await call(t.url, 'POST', '/admin/users', { token: t.adminToken, body: { email: 'viewer@mcp-log.example', name: 'The viewer', role: 'viewer', password: PASSWORD } })).status).toBe(201);
  const policies: Record<string, unknown>[] = [
    { name: 'mask personal data', type: 'pii_redaction', risk: 10, rules: { action: 'REDACT', target: 'both' } },
    { name: 'no exfiltration', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)export every customer'], action: 'DENY' } },
    { name: 'no internal hosts', type: 'content_filter', risk: 80, rules: { patterns: ['corp\\.internal'], action: 'DENY', target: 'output' } },
  ];
  for (const body of policies) expect((await call(t.url, 'POST', '/v1/policies', { token: t.adminToken, body })).status).toBe(200);
  expect((await call(t.url, 'POST', '/v1/policies', { token: other.admin, body: policies[0] })).status).toBe(200);
  browser = await launchChromium();
}, 60_000);

afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await server?.close();
  await jsonServer?.close();
});

/** A lookup whose arguments hold an e-mail address and a CPF, and whose result holds another e-mail address. */
async function lookup(token: string, marker: string, name = 'crm'): Promise<{ content: unknown; structuredContent: unknown }> {
  const client = await connect(token, name);
  const r = await client.callTool({ name: 'lookup_customer', arguments: { email: `ARGS-${marker}: ${EMAIL}, CPF ${CPF}` } });
  // The server got the arguments redacted, and the agent the result.
  expect(JSON.stringify((name === 'crm' ? server : jsonServer).calls.at(-1))).not.toContain(EMAIL);
  expect(JSON.stringify(r)).not.toContain(RESULT_EMAIL);
  return { content: r.content, structuredContent: r.structuredContent };
}

describe('MCP tool calls in the sampled request log', () => {
  const ids = { off: '', kept: '', refused: '', cut: '' };
  /** Every decision id met so far: a later call's entry is the one not among them. */
  const seen = new Set<string>();

  it('keeps nothing while the log is off', async () => {
    await lookup(t.adminToken, 'off');
    ids.off = await decisionOf(t.adminToken, 'lookup_customer', 'completed');
    seen.add(ids.off);
    expect(t.gw.requestLog.log.lookup('default', ids.off).kind).toBe('off');
    expect(samplesStored()).toBe(0);
  });

  it('at rate 1 keeps the arguments as sent to the server and the result as returned to the agent, redacted only', async () => {
    await setLog({ enabled: true, sample_rate: 1 });
    const got = await lookup(t.adminToken, 'kept');
    ids.kept = await decisionOf(t.adminToken, 'lookup_customer', 'completed', seen);
    seen.add(ids.kept);
    const s = await sampleOf(ids.kept);
    expect(s).toMatchObject({ endpoint: 'mcp.tools.call', server: 'crm', tool: 'lookup_customer', stream: true, request_truncated: false, answer_truncated: false });
    // The arguments are exactly what the server received; the result exactly what the agent got.
    expect(JSON.parse(s.request!)).toEqual(server.calls.at(-1)!.args);
    expect(s.request).toContain('ARGS-kept');
    expect(s.request).toContain('[REDACTED:EMAIL]');
    expect(s.request).toContain('[REDACTED:BR_CPF]');
    expect(JSON.parse(s.answer!)).toEqual(got);
    expect(s.answer).toContain('[REDACTED:EMAIL]');
    for (const original of [EMAIL, CPF, RESULT_EMAIL]) expect(JSON.stringify(s)).not.toContain(original);
  });

  it('keeps a whole JSON answer\'s result as relayed; arguments past 64 KiB are cut and marked truncated', async () => {
    const got = await lookup(t.adminToken, 'json', 'crm-json');
    const id = await decisionOf(t.adminToken, 'lookup_customer', 'completed', seen);
    seen.add(id);
    const s = await sampleOf(id);
    expect(s).toMatchObject({ endpoint: 'mcp.tools.call', server: 'crm-json', tool: 'lookup_customer', stream: false });
    expect(JSON.parse(s.request!)).toEqual(jsonServer.calls.at(-1)!.args);
    expect(JSON.parse(s.answer!)).toEqual(got);
    for (const original of [EMAIL, CPF, RESULT_EMAIL]) expect(JSON.stringify(s)).not.toContain(original);

    const client = await connect(t.adminToken, 'crm-json');
    await client.callTool({ name: 'send_email', arguments: { to: 'team', body: 'x'.repeat(70_000) } });
    const long = await sampleOf(await decisionOf(t.adminToken, 'send_email', 'completed'));
    expect(long.request_truncated).toBe(true);
    expect(Buffer.byteLength(long.request!)).toBe(64 * 1024);
    expect(long).toMatchObject({ answer: JSON.stringify({ content: [{ type: 'text', text: 'sent to team' }] }), answer_truncated: false });
  });

  it('a refused call keeps no arguments (never redacted), and a result an output policy replaced is not kept', async () => {
    const client = await connect(t.adminToken);
    const refused = await client.callTool({ name: 'send_email', arguments: { to: EMAIL, body: `please export every customer, CPF ${CPF}` } }).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    ids.refused = await decisionOf(t.adminToken, 'send_email', 'blocked');
    expect(await sampleOf(ids.refused)).toMatchObject({ endpoint: 'mcp.tools.call', tool: 'send_email', request: null, answer: null });

    const cut = await client.callTool({ name: 'internal_report', arguments: { ask: 'the report' } }).then(() => null, (e: unknown) => e);
    expect(cut).toBeInstanceOf(McpError);
    ids.cut = await decisionOf(t.adminToken, 'internal_report', 'blocked');
    const s = await sampleOf(ids.cut);
    expect(JSON.parse(s.request!)).toEqual({ ask: 'the report' });
    expect(s.answer).toBeNull();
    expect(JSON.stringify(s)).not.toContain('corp.internal');
  });

  it('another tenant whose log is off keeps nothing of its calls', async () => {
    const before = samplesStored();
    await lookup(other.operator, 'other');
    const id = await decisionOf(other.admin, 'lookup_customer', 'completed');
    expect(t.gw.requestLog.log.lookup('other', id).kind).toBe('off');
    expect(t.gw.requestLog.log.lookup('other', ids.kept).kind).toBe('off');
    expect(samplesStored()).toBe(before);
  });

  it('the decision page shows the arguments and the result under their own labels, redacted', async () => {
    const page: Page = await signInToConsole(browser, t.authUrl, 'viewer@mcp-log.example', PASSWORD, pageProblems);
    await page.goto(`${t.authUrl}/console/decisions/${ids.kept}`);
    expect(await page.getAttribute('#sample', 'data-sample')).toBe('sampled');
    expect(await page.$$eval('#sample h3', (hs) => hs.map((h) => h.textContent))).toEqual(['Arguments (as sent to the server)', 'Result (as returned to the agent)']);
    const args = (await page.textContent('#sample-request')) ?? '';
    const result = (await page.textContent('#sample-answer')) ?? '';
    expect(args).toContain('ARGS-kept');
    expect(args).toContain('[REDACTED:BR_CPF]');
    expect(result).toContain('[REDACTED:EMAIL]');
    const html = await page.content();
    for (const original of [EMAIL, CPF, RESULT_EMAIL]) expect(html, original).not.toContain(original);
    expect(html).not.toContain('Only proxied calls');

    await page.goto(`${t.authUrl}/console/decisions/${ids.refused}`);
    expect(await page.getAttribute('#sample', 'data-sample')).toBe('sampled');
    expect(await page.textContent('#sample-request')).toMatch(/^Not kept: the call was refused/);
    expect(await page.textContent('#sample-answer')).toMatch(/^Not kept/);
    expect(await page.content()).not.toContain(EMAIL);

    await page.goto(`${t.authUrl}/console/decisions/${ids.off}`);
    expect(await page.getAttribute('#sample', 'data-sample')).toBe('not-sampled');
    await page.context().close();
    expect(pageProblems).toEqual([]);
  });

  it('holds none of the texts in clear on disk', async () => {
    await t.gw.deps.store.root.flushed;
    const disk = lmdbBytes();
    for (const clear of ['ARGS-kept', 'ARGS-off', '[REDACTED:BR_CPF]', 'the report', EMAIL, CPF, RESULT_EMAIL]) expect(disk.includes(Buffer.from(clear)), clear).toBe(false);
  });

  it('off again: a new call keeps nothing', async () => {
    await setLog({ enabled: false });
    const before = samplesStored();
    await lookup(t.adminToken, 'off-again');
    const id = await decisionOf(t.adminToken, 'lookup_customer', 'completed', seen);
    expect(t.gw.requestLog.log.lookup('default', id).kind).toBe('off');
    expect(samplesStored()).toBe(before);
  });
});
