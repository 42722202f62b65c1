import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from './helpers/start-test-gateway.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';
import { storedEntries } from './helpers/ledger/raw-entries.js';
import { isCompressedRecord } from '../src/ledger/log/record-codec.js';

let g: GatewayWithMock | undefined;
afterEach(async () => {
  await closeGatewayWithMock(g ?? {});
  g = undefined;
});

/** A proxied chat call (the official SDK) and a /v1/decide call; returns whether each one's record is stored compressed. */
async function storedForms(setting: string | null): Promise<Record<string, boolean>> {
  g = await startGatewayWithMock(setting === null ? {} : { ledgerCompression: setting });
  const { t, mock } = g;
  const tok = await t.tenant('acme');
  mock.next({ content: 'A reply long enough to be worth storing in fewer bytes than it has.' });
  const client = new OpenAI({ apiKey: tok.operator, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'agent-1' } });
  await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Summarise the renewal risk of Northwind Traders.' }] });
  const decided = await call(t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'agent-1', action: { type: 'tool_call', target: 'https://crm.example.com/search', method: 'POST' } } });
  expect(decided.status).toBe(200);
  const { ledger, store } = t.gw.deps;
  await expect.poll(() => ledger.head('acme').size).toBe(2);
  const out: Record<string, boolean> = {};
  for (const { key, value } of storedEntries(store.root).getRange({ start: ['acme', 1], end: ['acme', 3] })) {
    out[ledger.get('acme', (key as [string, number])[1])!.event_type] = isCompressedRecord(value);
  }
  const verified = await call(t.url, 'GET', '/v1/events/verify', { token: tok.admin });
  expect(verified.body).toMatchObject({ ok: true });
  return out;
}

describe('LEDGER_COMPRESSION', () => {
  it.each([
    [null, { 'proxy.chat.completions': true, decision: false }],
    ['proxy', { 'proxy.chat.completions': true, decision: false }],
    ['all', { 'proxy.chat.completions': true, decision: true }],
    ['true', { 'proxy.chat.completions': true, decision: true }],
    ['off', { 'proxy.chat.completions': false, decision: false }],
    ['false', { 'proxy.chat.completions': false, decision: false }],
  ])('%s: which records are stored compressed; the chain verifies', async (setting, expected) => {
    expect(await storedForms(setting)).toEqual(expected);
  });
});
