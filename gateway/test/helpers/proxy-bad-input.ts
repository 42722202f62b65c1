import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { call, expectEnvelope, type CallResult, type TestGateway } from './start-test-gateway.js';

/**
 * What the wire-format conformance suite (wire-conformance/) reads a proxy answer with: a refusal's checks, the
 * ledger as the gateway holds it, and a relayed stream read event by event.
 */

/**
 * A refusal as documented: the error envelope with its status and type (docs/decisions.md, "Errors"), and the verdict
 * headers (DENIED, a trace id), which every answer under /v1/proxy carries, a 404 or 405 of a path not proxied included.
 */
export function expectRefused(r: CallResult, status: number, type: string): void {
  expectEnvelope(r, status, type);
  expect(r.headers['x-svc-verdict'], `${status} ${r.text.slice(0, 200)}`).toBe('DENIED');
  expect(r.headers['x-svc-trace-id']).toBeTruthy();
}

/** Every one of the tenant's ledger entries, oldest first. */
export function ledgerOf(t: TestGateway, tenant: string) {
  return t.gw.deps.ledger.list(tenant, { limit: 500, order: 'asc' }).events;
}

/**
 * Proves that calls made before it left the ledger untouched: a good call (`marker`) is made and its entry waited for;
 * entries are chained in the order calls end, so anything the earlier calls recorded would stand before it.
 */
export async function expectNothingRecordedBefore(t: TestGateway, tenant: string, marker: () => Promise<unknown>): Promise<void> {
  await marker();
  await expect.poll(() => ledgerOf(t, tenant).length, { timeout: 5000 }).toBeGreaterThan(0);
  const entries = ledgerOf(t, tenant);
  expect(entries.map((e) => e.payload['outcome'])).toEqual(['completed']);
}

/** An SSE event as relayed: its name (null without an `event:` line) and its data, parsed when JSON. */
export interface RelayedEvent {
  event: string | null;
  data: unknown;
}

/** The events of a relayed SSE stream (either line ending), in order. */
export function sseEvents(text: string): RelayedEvent[] {
  const out: RelayedEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) continue;
    const joined = data.join('\n');
    let parsed: unknown = joined;
    try {
      parsed = JSON.parse(joined);
    } catch {
      // Not JSON (OpenAI's [DONE]): kept as text.
    }
    out.push({ event, data: parsed });
  }
  return out;
}

/**
 * A streamed call the upstream cut short, as the client and the ledger saw it: the client's bytes, the in-band error
 * event last, and the tenant's one ledger entry, complete (the decision, the call's fields, the hash of exactly what the
 * client received, outcome `upstream_aborted`), and the decision index's record of it.
 */
export async function expectAbortedStreamRecorded(
  t: TestGateway,
  tenant: string,
  token: string,
  r: CallResult,
  expected: { eventType: string; endpoint: string; model: string; agentId: string; usage?: Record<string, number> },
): Promise<void> {
  expect(r.status).toBe(200);
  expect(r.headers['x-svc-verdict']).toBe('ALLOWED');
  const decisionId = r.headers['x-svc-trace-id']!;
  await expect.poll(() => ledgerOf(t, tenant).length, { timeout: 5000 }).toBe(1);
  const entry = ledgerOf(t, tenant)[0]!;
  expect(entry.event_type).toBe(expected.eventType);
  expect(entry.metadata).toMatchObject({ agent_id: expected.agentId, decision_id: decisionId });
  expect(entry.decision).toMatchObject({ decision_id: decisionId, execution_status: 'ALLOW' });
  expect(entry.payload).toMatchObject({
    endpoint: expected.endpoint,
    model: expected.model,
    outcome: 'upstream_aborted',
    stream: true,
    upstream_status: 200,
    output_sha256: createHash('sha256').update(r.text).digest('hex'),
  });
  // What usage the events before the cut reported (Anthropic's input tokens come first, in message_start).
  if (expected.usage) expect(entry.payload['usage']).toMatchObject(expected.usage);
  const d = await call(t.url, 'GET', `/admin/decisions/${decisionId}`, { token });
  expect(d.status).toBe(200);
  expect(d.body).toMatchObject({ event_type: expected.eventType, agent_id: expected.agentId, execution_status: 'ALLOW' });
}

/** A 5 MB system prompt: past the 4 MiB PROXY_BODY_LIMIT the conformance suite gives its gateway. */
export const FIVE_MB = 'x'.repeat(5 * 1000 * 1000);
