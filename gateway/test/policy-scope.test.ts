import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// A policy's scope (docs/policies.md, "Scope") through real clients: the OpenAI SDK on the proxy, the MCP SDK on both
// sides of the MCP gateway, /v1/decide and /v1/events over HTTP. A scoped policy acts where its scope matches only.

let t: TestGateway;
let provider: MockUpstream;
let crm: McpTestServer;
const clients: Client[] = [];
let n = 0;

beforeAll(async () => {
  provider = await new MockUpstream().start();
  crm = await new McpTestServer().start();
  // Prompts past 2,000 characters are judged in the evaluation worker, with the set the call's scope picked.
  t = await startTestGateway({ upstreamBaseUrl: provider.url, mcpUpstreams: JSON.stringify({ crm: crm.url }), evalInlineMaxChars: 2000 });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
  await crm?.close();
});

type Tenant = Awaited<ReturnType<TestGateway['tenant']>>;

async function tenantWith(...policies: Record<string, unknown>[]): Promise<Tenant & { id: string; ids: string[] }> {
  const id = `scope-${++n}`;
  const tok = await t.tenant(id);
  const ids: string[] = [];
  for (const body of policies) {
    const r = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body });
    expect(r.status, r.text).toBe(200);
    ids.push(r.body.id as string);
  }
  return { ...tok, id, ids };
}

const openai = (token: string, agent?: string) => new OpenAI({ apiKey: token, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: agent === undefined ? {} : { 'x-svc-agent-id': agent } });

async function mcp(token: string, agent: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/crm`), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-svc-agent-id': agent } } }));
  clients.push(client);
  return client;
}

/** What the provider was sent as the last user message. */
const lastPrompt = () => {
  const body = provider.received.at(-1)?.body as { messages: { content: string }[] } | undefined;
  return body?.messages.at(-1)?.content;
};

describe('a scoped policy acts only where its scope matches', () => {
  it("a scoped PII policy leaves a trusted server's argument whole and still redacts the provider's copy", async () => {
    const a = await tenantWith({ name: 'pii to providers', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' }, scope: { doors: ['proxy'] } });
    const email = 'maria.souza@example.com';

    // The CRM lookup by e-mail reaches the CRM as the agent wrote it.
    const client = await mcp(a.operator, 'support-bot');
    const found = await client.callTool({ name: 'lookup_customer', arguments: { email } });
    expect(crm.calls.at(-1)).toEqual({ tool: 'lookup_customer', args: { email } });
    // Its result too: the policy does not act on MCP.
    expect(JSON.stringify(found.content)).toContain(email);

    // The same e-mail on its way to the provider is redacted, and so is the provider's answer.
    provider.next({ content: `I wrote to ${email}.` });
    const answer = await openai(a.operator, 'support-bot').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Draft a reply to ${email}` }] });
    expect(lastPrompt()).toBe('Draft a reply to [REDACTED:EMAIL]');
    expect(answer.choices[0]?.message.content).toBe('I wrote to [REDACTED:EMAIL].');
  });

  it("a PII policy scoped to other MCP servers leaves the CRM's arguments whole; unscoped, the same policy redacts them", async () => {
    const a = await tenantWith({ name: 'pii off the crm', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'input' }, scope: { servers: ['billing-*'] } });
    await (await mcp(a.operator, 'bot')).callTool({ name: 'lookup_customer', arguments: { email: 'ana@example.com' } });
    expect(crm.calls.at(-1)?.args).toEqual({ email: 'ana@example.com' });

    const put = await call(t.url, 'PUT', `/v1/policies/${a.ids[0]}`, { token: a.admin, body: { scope: null } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.scope).toBeUndefined();
    await (await mcp(a.operator, 'bot')).callTool({ name: 'lookup_customer', arguments: { email: 'ana@example.com' } });
    expect(crm.calls.at(-1)?.args).toEqual({ email: '[REDACTED:EMAIL]' });
  });

  it("a model_access policy scoped to an agent holds that agent to its models, other agents may use others; a PAT bound to the agent is its key", async () => {
    const a = await tenantWith({ name: 'bot-a models', type: 'model_access', risk: 70, rules: { allow: ['gpt-4o-mini'], action: 'DENY' }, scope: { agents: ['bot-a'] } });
    const issued = await call(t.authUrl, 'POST', '/token', { token: a.admin, body: { name: 'bot-a key', role: 'operator', agent_id: 'bot-a' } });
    expect(issued.status, issued.text).toBe(200);
    const botA = openai(issued.body.token as string);

    expect((await botA.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices).toHaveLength(1);
    const sent = provider.received.length;
    const refused = await botA.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((refused as InstanceType<typeof OpenAI.PermissionDeniedError>).message).toContain('model "gpt-4o" matches no allowed name');
    expect(provider.received.length).toBe(sent);

    const other = await openai(a.operator, 'bot-b').chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(other.choices).toHaveLength(1);
    expect(provider.received.at(-1)?.body?.['model']).toBe('gpt-4o');
  });

  it('a long prompt, judged in the evaluation worker, is judged by the policies its scope picks', async () => {
    const a = await tenantWith(
      { name: 'e-mails of bot-a', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'input', entities: ['EMAIL'] }, scope: { agents: ['bot-a'] } },
      { name: 'phones of bot-b', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'input', entities: ['PHONE'] }, scope: { agents: ['bot-b'] } },
      { name: 'no secrets from bot-b', type: 'content_filter', risk: 80, rules: { patterns: ['top secret'], action: 'DENY' }, scope: { agents: ['bot-b'] } },
    );
    const long = `${'lorem ipsum '.repeat(300)} write to ana@example.com or call +55 11 91234-5678, top secret`;
    await openai(a.operator, 'bot-a').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: long }] });
    // bot-a's set redacts e-mails only: the phone number another agent's policy redacts is left whole.
    expect(lastPrompt()).toBe(long.replace('ana@example.com', '[REDACTED:EMAIL]'));
    const refused = await openai(a.operator, 'bot-b').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: long }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    await openai(a.operator, 'bot-c').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: long }] });
    expect(lastPrompt()).toBe(long);
  });

  it('a content filter scoped to the output does not block an input, and blocks the answer', async () => {
    const a = await tenantWith({ name: 'no codes out', type: 'content_filter', risk: 60, rules: { patterns: ['launch code'], action: 'DENY', target: 'both' }, scope: { direction: 'output' } });
    const client = openai(a.operator, 'bot');
    provider.next({ content: 'Sure, here is a summary.' });
    const ok = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'what is the launch code?' }] });
    expect(ok.choices[0]?.message.content).toBe('Sure, here is a summary.');

    provider.next({ content: 'The launch code is 0000.' });
    const blocked = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }).catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((blocked as Error).message).toContain('answer blocked by policy');
  });

  it('a policy scoped to /v1/decide judges decisions, not the proxy nor events', async () => {
    const a = await tenantWith({ name: 'no transfers', type: 'content_filter', risk: 80, rules: { patterns: ['wire transfer'], action: 'DENY' }, scope: { doors: ['decide'] } });
    const text = 'make a wire transfer';
    const decided = await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: 'bot', action: { type: 'tool_call', target: 'pay', payload: { note: text } } } });
    expect(decided.body.envelope).toMatchObject({ execution_status: 'DENY', policies_evaluated: 1 });

    const proxied = await openai(a.operator, 'bot').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] });
    expect(proxied.choices).toHaveLength(1);
    expect(lastPrompt()).toBe(text);
    const event = await call(t.url, 'POST', '/v1/events', { token: a.operator, body: { event_type: 'note', payload: { text }, metadata: { agent_id: 'bot' } } });
    expect(event.body.envelope.execution_status).toBe('ALLOW');
  });

  it('a tool_access policy scoped to some tools hides them from tools/list and refuses their calls, leaving the others', async () => {
    const a = await tenantWith({ name: 'no destructive tools', type: 'tool_access', risk: 90, rules: { deny: ['*'], action: 'DENY' }, scope: { servers: ['crm'], tools: ['drop_*', 'send_*'] } });
    const client = await mcp(a.operator, 'bot');
    const listed = (await client.listTools()).tools.map((x) => x.name).sort();
    expect(listed).toEqual(['count', 'crash', 'internal_report', 'lookup_customer']);
    const refused = await client.callTool({ name: 'drop_table', arguments: { name: 'users' } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ data: { verdict: 'DENIED', rule: a.ids[0] } });
    expect((await client.callTool({ name: 'lookup_customer', arguments: { email: 'x' } })).isError).toBeFalsy();
  });
});

describe('a scope is validated like the rest of the policy', () => {
  it('400 for a bad glob, an unknown field, an empty list or scope, an unknown door or direction; the scope is stored and shown', async () => {
    const a = await tenantWith();
    const base = { name: 'p', type: 'content_filter', risk: 10, rules: { patterns: ['x'] } };
    const bad: [unknown, RegExp][] = [
      [{ servers: ['crm.example.com'] }, /scope\.servers\.0/],
      [{ agents: [''] }, /scope\.agents\.0/],
      [{ agents: ['bot\u0007'] }, /scope\.agents\.0/],
      [{ teams: ['x'] }, /unknown field "teams"/],
      [{ agents: [] }, /scope\.agents/],
      [{}, /scope/],
      [{ doors: ['cli'] }, /must be one of proxy, mcp, decide, events/],
      [{ doors: ['proxy', 'proxy'] }, /scope\.doors/],
      [{ direction: 'sideways' }, /must be one of input, output, both/],
      ['proxy', /scope/],
    ];
    for (const [scope, message] of bad) {
      const r = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { ...base, scope } });
      expect(expectEnvelope(r, 400, 'invalid_request').message, JSON.stringify(scope)).toMatch(message);
    }
    expect((await call(t.url, 'GET', '/v1/policies?enabled=all', { token: a.admin })).body.total).toBe(0);

    const scope = { agents: ['bot-*'], models: ['gpt-4o*'], servers: ['crm'], tools: ['lookup_*'], doors: ['proxy', 'mcp'], direction: 'input' };
    const created = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { ...base, scope } });
    expect(created.status, created.text).toBe(200);
    expect((await call(t.url, 'GET', `/v1/policies/${created.body.id as string}`, { token: a.admin })).body.scope).toEqual(scope);
    const put = await call(t.url, 'PUT', `/v1/policies/${created.body.id as string}`, { token: a.admin, body: { scope: { doors: [] } } });
    expectEnvelope(put, 400, 'invalid_request');
    expect((await call(t.url, 'GET', `/v1/policies/${created.body.id as string}`, { token: a.admin })).body.scope).toEqual(scope);
  });
});

describe('the dry run of a scoped policy', () => {
  it('judges recorded actions within the scope, says which are outside it, and reads the door from the event type', async () => {
    const a = await tenantWith();
    const client = (agent: string) => openai(a.operator, agent);
    await client('bot-a').chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    await client('bot-b').chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const decided = await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: 'bot-a', action: { type: 'tool_call', target: 'shell.exec' } } });
    expect(decided.status).toBe(200);
    await t.gw.threadsCaughtUp();
    await expect.poll(() => t.gw.deps.ledger.list(a.id, { limit: 10 }).events.filter((e) => e.decision !== null).length, { timeout: 5000 }).toBe(3);

    const dry = async (policy: Record<string, unknown>) => {
      const r = await call(t.url, 'POST', '/v1/policies/dry-run', { token: a.admin, body: { policy } });
      expect(r.status, r.text).toBe(200);
      return r.body as { actions: { agent_id: string; event_type: string; new_verdict: string | null; changed: boolean | null; why: string }[] };
    };
    const models = await dry({ name: 'bot-a models', type: 'model_access', risk: 70, rules: { allow: ['gpt-4o-mini'], action: 'DENY' }, scope: { agents: ['bot-a'] } });
    const byAgent = (agent: string, type: string) => models.actions.find((x) => x.agent_id === agent && x.event_type === type);
    expect(byAgent('bot-a', 'proxy.chat.completions')).toMatchObject({ new_verdict: 'DENY', changed: true });
    expect(byAgent('bot-b', 'proxy.chat.completions')).toMatchObject({ new_verdict: 'ALLOW', changed: false, why: expect.stringContaining("outside the candidate's scope") });

    const tools = await dry({ name: 'no shell on the proxy', type: 'tool_access', risk: 50, rules: { deny: ['shell.*'], action: 'DENY' }, scope: { doors: ['proxy'] } });
    expect(tools.actions.find((x) => x.event_type === 'decision')).toMatchObject({ new_verdict: 'ALLOW', changed: false, why: expect.stringContaining("outside the candidate's scope") });
    const decideTools = await dry({ name: 'no shell on decide', type: 'tool_access', risk: 50, rules: { deny: ['shell.*'], action: 'DENY' }, scope: { doors: ['decide'] } });
    expect(decideTools.actions.find((x) => x.event_type === 'decision')).toMatchObject({ new_verdict: 'DENY', changed: true });
    const output = await dry({ name: 'answers only', type: 'tool_access', risk: 50, rules: { deny: ['shell.*'], action: 'DENY' }, scope: { direction: 'output' } });
    expect(output.actions.find((x) => x.event_type === 'decision')).toMatchObject({ new_verdict: 'ALLOW', why: expect.stringContaining('judges no request') });
  });
});
