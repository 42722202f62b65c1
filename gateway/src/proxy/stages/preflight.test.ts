import { describe, expect, it } from 'vitest';
import { policyRecord, proxyContext, refusal, TENANT } from '../../../test/helpers/proxy-context.js';
import { compilePolicySet } from '../../policy/compile-policy-set.js';
import type { PolicyRecord } from '../../policy/policy-record.js';
import type { EndpointKind } from '../endpoints.js';
import { parseIntentStage } from './parse-intent.js';
import { preflightStage } from './preflight.js';

// The provider request's shape, checked over a small context after parse-intent, as the pipeline runs them.

const MAX_MODEL = 64;
const stage = preflightStage(MAX_MODEL);
/** A policy that reads the input's text: token-id prompts cannot be judged under it. */
const PII = policyRecord('pii_redaction', { action: 'REDACT', target: 'input', entities: ['EMAIL'] });
/** A policy that reads no text. */
const RATE = policyRecord('rate_limit', { limit: 100, window_s: 60, scope: 'agent', action: 'DENY' });

function call(kind: EndpointKind, body: Record<string, unknown>, policies: PolicyRecord[] = [], session = '') {
  const c = proxyContext(kind, { body, headers: { 'x-svc-session-id': session } });
  parseIntentStage().run(c);
  c.policySet = compilePolicySet(TENANT, 1, policies);
  return c;
}

/** The message of preflight's refusal (always invalid_request, 400). */
function refused(kind: EndpointKind, body: Record<string, unknown>, policies: PolicyRecord[] = [], session = ''): string {
  const c = call(kind, body, policies, session);
  const err = refusal(() => stage.run(c));
  expect(err.code).toBe('invalid_request');
  expect(err.status).toBe(400);
  expect(c.sessionId).toBe('');
  return err.message;
}

const passes = (kind: EndpointKind, body: Record<string, unknown>, policies: PolicyRecord[] = []) => expect(stage.run(call(kind, body, policies))).toBeUndefined();

const MESSAGES = [{ role: 'user', content: 'hi' }];

describe('preflight stage', () => {
  it('passes a well-formed request of each endpoint', () => {
    passes('chat', { model: 'm', messages: MESSAGES, stream: true });
    passes('completions', { model: 'm', prompt: 'say hi' });
    passes('completions', { model: 'm', prompt: ['a', 'b'] });
    passes('embeddings', { model: 'm', input: 'embed' });
    passes('embeddings', { model: 'm', input: ['a', 'b'], stream: false });
  });

  it('refuses a missing, empty or non-string model', () => {
    for (const model of [undefined, '', 7, null, ['m']]) expect(refused('chat', { model, messages: MESSAGES })).toBe('model: required string');
  });

  it(`refuses a model name longer than the cap; one of exactly the cap passes`, () => {
    expect(refused('chat', { model: 'm'.repeat(MAX_MODEL + 1), messages: MESSAGES })).toBe(`model: at most ${MAX_MODEL} characters`);
    passes('chat', { model: 'm'.repeat(MAX_MODEL), messages: MESSAGES });
  });

  it('refuses a `stream` that is present but not a boolean', () => {
    for (const stream of ['true', 1, null]) expect(refused('chat', { model: 'm', messages: MESSAGES, stream })).toBe('stream: must be a boolean');
  });

  it('refuses chat without a non-empty messages array', () => {
    for (const messages of [undefined, [], 'hi', { role: 'user' }]) expect(refused('chat', { model: 'm', messages })).toBe('messages: required non-empty array');
  });

  it('refuses a chat message that is not an object with a string role, naming its index', () => {
    for (const bad of [null, 'hi', [], { content: 'no role' }, { role: 3 }]) {
      expect(refused('chat', { model: 'm', messages: [...MESSAGES, bad] })).toBe('messages[1]: must be an object with a role');
    }
  });

  it('refuses a completion without a string or array prompt', () => {
    for (const prompt of [undefined, 3, { text: 'x' }, null]) expect(refused('completions', { model: 'm', prompt })).toBe('prompt: required string or array');
  });

  it('refuses embeddings without a string or array input, and streamed embeddings', () => {
    for (const input of [undefined, 3, { text: 'x' }]) expect(refused('embeddings', { model: 'm', input })).toBe('input: required string or array');
    expect(refused('embeddings', { model: 'm', input: 'x', stream: true })).toBe('stream: embeddings do not stream');
  });

  it("refuses token-id prompts and inputs only when the tenant's policies read the input's text", () => {
    const prompt = "prompt: token-id arrays cannot be judged by this tenant's input policies; send text";
    const input = "input: token-id arrays cannot be judged by this tenant's input policies; send text";
    expect(refused('completions', { model: 'm', prompt: [1, 2, 3] }, [PII])).toBe(prompt);
    expect(refused('completions', { model: 'm', prompt: [[1, 2], [3]] }, [PII])).toBe(prompt);
    expect(refused('embeddings', { model: 'm', input: ['text', 4] }, [PII])).toBe(input);
    passes('completions', { model: 'm', prompt: [1, 2, 3] }, [RATE]);
    passes('embeddings', { model: 'm', input: [[1, 2]] }, []);
    passes('completions', { model: 'm', prompt: ['text'] }, [PII]);
  });

  it('refuses an x-svc-session-id over 256 characters; up to 256 it becomes the session', () => {
    expect(refused('chat', { model: 'm', messages: MESSAGES }, [], 's'.repeat(257))).toBe('x-svc-session-id: at most 256 characters');
    const c = call('chat', { model: 'm', messages: MESSAGES }, [], 's'.repeat(256));
    stage.run(c);
    expect(c.sessionId).toBe('s'.repeat(256));
  });
});
