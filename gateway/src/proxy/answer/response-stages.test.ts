import { describe, expect, it } from 'vitest';
import { policyRecord, proxyContext, TENANT } from '../../../test/helpers/proxy-context.js';
import { GatewayError } from '../../errors.js';
import { compilePolicySet } from '../../policy/compile-policy-set.js';
import type { PolicyRecord } from '../../policy/policy-record.js';
import type { TenantLimits } from '../../policy/runtime/tenant-limits.js';
import type { EndpointKind } from '../endpoints.js';
import { ToolCallValidator } from '../output/tool-call-validator.js';
import { PriceTable } from '../pricing/price-table.js';
import type { ProxyContext } from '../proxy-context.js';
import { AnswerPiece } from './answer-piece.js';
import { checkOutputStage } from './check-output.js';
import { meterUsageStage } from './meter-usage.js';
import { redactOutputStage } from './redact-output.js';
import { ResponseStages } from './response-stage.js';

// The response stages over a small context, as Envoy tests a filter with mock callbacks: no server, no upstream.

const PII = policyRecord('pii_redaction', { action: 'REDACT', target: 'both', entities: ['EMAIL'] });
const FILTER = policyRecord('content_filter', { patterns: ['forbidden plan'], action: 'DENY', target: 'output', case_insensitive: false });

interface Spent {
  tenant: string;
  agent: string;
  brl: number;
}

function setUp(kind: EndpointKind, policies: PolicyRecord[]) {
  const spent: Spent[] = [];
  const limits = { addSpend: (tenant: string, agent: string, brl: number) => spent.push({ tenant, agent, brl }) } as unknown as TenantLimits;
  const c = proxyContext(kind, { agentId: 'bot' });
  c.policySet = compilePolicySet(TENANT, 1, policies);
  c.model = 'gpt-4o-mini';
  // Declared as the pipeline declares them, run in reverse.
  const stages = new ResponseStages([checkOutputStage(new ToolCallValidator()), redactOutputStage(), meterUsageStage(limits, new PriceTable())].reverse());
  return { c, stages, spent };
}

const chunk = (content: string | null, finish: string | null = null, index = 0) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o-mini',
  choices: [{ index, delta: content === null ? {} : { content }, finish_reason: finish }],
});

/** A stream's events through the stages: what the client would read of each relayed event, then of the end's. */
function stream(stages: ResponseStages, c: ProxyContext, events: Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const body of events) {
    const piece = new AnswerPiece(body, false);
    stages.piece(c, piece);
    if (!piece.dropped) out.push(piece.body);
  }
  for (const piece of stages.streamEnd(c)) out.push(piece.body);
  return out;
}

const deltas = (events: Record<string, unknown>[]) =>
  events
    .flatMap((e) => (e['choices'] as { delta?: { content?: string } }[] | undefined) ?? [])
    .map((ch) => ch.delta?.content ?? '')
    .join('');

describe('response stages, whole answers', () => {
  it('redact every string the client reads (content and tool-call arguments) and mark the piece for re-serialising', () => {
    const { c, stages } = setUp('chat', [PII]);
    const answer = new AnswerPiece(
      {
        choices: [{ index: 0, message: { content: 'write to ana@example.com', tool_calls: [{ function: { name: 'mail', arguments: '{"to":"bo@example.org"}' } }] } }],
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      },
      true,
    );
    stages.piece(c, answer);
    const message = (answer.body['choices'] as { message: { content: string; tool_calls: { function: { arguments: string } }[] } }[])[0]!.message;
    expect(message.content).toBe('write to [REDACTED:EMAIL]');
    expect(message.tool_calls[0]!.function.arguments).toBe('{"to":"[REDACTED:EMAIL]"}');
    expect(answer.changed).toBe(true);
    expect(c.outputRedactions).toBe(2);
    expect(c.answerText).not.toContain('@');
    expect(c.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });

  it('leave an answer without personal data as the upstream sent it', () => {
    const { c, stages } = setUp('completions', [PII]);
    const answer = new AnswerPiece({ choices: [{ index: 0, text: 'nothing personal' }] }, true);
    stages.piece(c, answer);
    expect(answer.changed).toBe(false);
    expect(c.answerText).toBe('nothing personal');
  });

  it('refuse a whole answer that an output filter blocks, naming the rule', () => {
    const { c, stages } = setUp('chat', [FILTER]);
    const answer = new AnswerPiece({ choices: [{ index: 0, message: { content: 'the forbidden plan is' } }] }, true);
    expect(() => stages.piece(c, answer)).toThrow(GatewayError);
    expect(c.verdict).toBe('DENY');
    expect(c.rule).toBe(FILTER.id);
    expect(c.outcome).toBe('blocked');
  });
});

describe('response stages, streams', () => {
  it('catch an e-mail split across events, and put the held tail in the event that ends the choice', () => {
    const { c, stages } = setUp('chat', [PII]);
    const out = stream(stages, c, [chunk('mail ana@exa'), chunk('mple.com now'), chunk(' or cy@example.org', 'stop')]);
    expect(deltas(out)).toBe('mail [REDACTED:EMAIL] now or [REDACTED:EMAIL]');
    expect(out).toHaveLength(3);
    expect(c.answerText).toBe('mail [REDACTED:EMAIL] now or [REDACTED:EMAIL]');
  });

  it('flush what a choice still holds in an event of its own when the stream ends without finish_reason', () => {
    const { c, stages } = setUp('chat', [PII]);
    const out = stream(stages, c, [chunk('reach me at ana@example.com')]);
    expect(deltas(out)).toBe('reach me at [REDACTED:EMAIL]');
    const last = out[out.length - 1] as ReturnType<typeof chunk>;
    expect(last).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'gpt-4o-mini' });
  });

  it('keep choices apart: each has its own hold-back window', () => {
    const { c, stages } = setUp('chat', [PII]);
    const out = stream(stages, c, [chunk('a ana@ex', null, 0), chunk('b bo@ex', null, 1), chunk('ample.com', 'stop', 0), chunk('ample.org', 'stop', 1)]);
    const byChoice = (i: number) =>
      out
        .flatMap((e) => e['choices'] as { index: number; delta: { content?: string } }[])
        .filter((ch) => ch.index === i)
        .map((ch) => ch.delta.content ?? '')
        .join('');
    expect(byChoice(0)).toBe('a [REDACTED:EMAIL]');
    expect(byChoice(1)).toBe('b [REDACTED:EMAIL]');
  });

  it('count the usage event the gateway asked for, and drop it unless the client asked', () => {
    for (const wants of [false, true]) {
      const { c, stages, spent } = setUp('chat', []);
      c.clientWantsStreamUsage = wants;
      const out = stream(stages, c, [chunk('hi', 'stop'), { id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } }]);
      expect(out).toHaveLength(wants ? 2 : 1);
      expect(c.usage?.total_tokens).toBe(12);
      expect(spent).toHaveLength(1);
      expect(spent[0]).toMatchObject({ tenant: TENANT, agent: 'bot' });
    }
  });

  it('cut the stream at the first window an output filter blocks, even when the phrase spans events', () => {
    const { c, stages } = setUp('chat', [FILTER]);
    stages.piece(c, new AnswerPiece(chunk('here is the forbid'), false));
    expect(() => stages.piece(c, new AnswerPiece(chunk('den plan'), false))).toThrow(/blocked by policy/);
    expect(c.verdict).toBe('DENY');
    expect(c.outcome).toBe('blocked');
  });
});
