import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// A first-run mistake: the provider's key where the SDK takes its key (so where aduana reads its token). The 401 says
// what the key looks like and where it belongs, and never quotes it.

const OPENAI_KEY = 'sk-proj-hint-secret-0123456789abcdefABCDEF';
const ANTHROPIC_KEY = 'sk-ant-api03-hint-secret-0123456789abcdef';
const GOOGLE_KEY = 'AIzaSyHintSecret0123456789abcdefABCDEFG';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t?.close());

describe('a provider key given as the aduana token', () => {
  it('the OpenAI SDK gets an AuthenticationError saying it looks like an OpenAI key and where it goes, without the key', async () => {
    const sdk = new OpenAI({ apiKey: OPENAI_KEY, baseURL: `${t.url}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'a' } });
    const err = await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    const message = (err as Error).message;
    expect(message).toContain('looks like an OpenAI API key');
    expect(message).toContain('x-forwarded-authorization');
    expect(message).not.toContain(OPENAI_KEY);
  });

  it('the Anthropic SDK is told it holds an Anthropic key; a Google key on the API is named too', async () => {
    const sdk = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: `${t.url}/v1/proxy/anthropic`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'a' } });
    const err = await sdk.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((err as Error).message).toContain('looks like an Anthropic API key');
    expect((err as Error).message).not.toContain(ANTHROPIC_KEY);
    const r = await call(t.url, 'GET', '/v1/policies', { token: GOOGLE_KEY });
    const e = expectEnvelope(r, 401, 'authentication_error');
    expect(e.message).toContain('looks like a Google (Gemini) API key');
    expect(r.text).not.toContain(GOOGLE_KEY);
  });

  it('any other malformed token is still just an invalid token', async () => {
    expect(expectEnvelope(await call(t.url, 'GET', '/v1/policies', { token: 'not-a-token' }), 401, 'authentication_error').message).toBe('invalid token');
  });
});
