import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { AzureOpenAI } from 'openai';
import { expect } from 'vitest';
import type { CallResult } from '../helpers/start-test-gateway.js';
import type { RelayedEvent } from '../helpers/proxy-bad-input.js';
import { FIVE_MB } from '../helpers/proxy-bad-input.js';

type Json = Record<string, unknown>;

/**
 * One wire format as the conformance suite drives it: its calls, as its SDK sends them, the bad input its routes must
 * refuse, the paths under its prefix that are not proxied, where its answers carry text, and its own error shape.
 * Every format runs exactly the same tests (`describe-wire-format.ts`).
 */
export interface WireCase {
  readonly name: string;
  /** The headers its SDK sends with the PAT where it puts its key (the agent and the client's provider key too). */
  headers(pat: string): Record<string, string>;
  /** A call that is answered: its path, and a body asking `text` (streamed with `streamPath`, `stream(body)`). */
  readonly path: string;
  ask(text: string): Json;
  readonly streamPath: string;
  stream(body: Json): Json;
  /** Every path of the format that takes a body (each refuses one that is not a JSON object). */
  readonly bodyPaths: readonly string[];
  /** Bodies of the wrong shape, each with the path it is sent to and the field its 400 names. */
  readonly badTypes: readonly (readonly [path: string, body: Json, field: string])[];
  /** The same call's body past a 4 MiB limit. */
  huge(body: Json): Json;
  /** POSTs under the prefix that are not proxied (404), and GETs of a proxied path (405) and of one that is not (404). */
  readonly notProxied: readonly string[];
  readonly getProxied: string;
  readonly getNotProxied: string;
  /**
   * A refusal of a call on its routes, in the format's own error shape, for our error type: the body its SDK raises
   * with our message, our code, rule and trace id kept in `error`.
   */
  expectError(r: CallResult, status: number, ourType: string): void;
  /** The text a relayed stream event carries ('' for none). */
  textOf(e: RelayedEvent): string;
  /** The in-band error that ends a cut stream: the format's own shape, for a provider gone (upstream_unavailable). */
  expectCutError(e: RelayedEvent): void;
  /** The SSE names of a stream's first events before a cut after two chunks, where the format names its events. */
  readonly cutNames?: readonly string[];
  /** What a cut stream records (with usage where the events before the cut reported some). */
  readonly record: { eventType: string; endpoint: string; model: string; usage?: Record<string, number> };
  /** Streams through the official SDK, adding each text delta to `text`; rejects with the SDK's error. */
  sdkStream(base: string, pat: string, headers: Record<string, string>, onText: (t: string) => void): Promise<void>;
}

/** The gateway's envelope, OpenAI's shape: `error.{code, type, message, rule, traceId}`. */
function expectEnvelope(r: CallResult, status: number, type: string): Json {
  const e = r.body?.error as Json | undefined;
  expect(r.status, r.text.slice(0, 300)).toBe(status);
  expect(e).toMatchObject({ code: status, type, message: expect.any(String), rule: expect.any(String), traceId: expect.stringMatching(/.+/) });
  return e!;
}

/** Anthropic's error types for ours. */
const ANTHROPIC_TYPES: Readonly<Record<string, string>> = {
  invalid_request: 'invalid_request_error',
  payload_too_large: 'request_too_large',
  svc_policy_violation: 'permission_error',
  upstream_unavailable: 'overloaded_error',
};

/** Google's canonical statuses for ours. */
const GOOGLE_STATUSES: Readonly<Record<string, string>> = {
  invalid_request: 'INVALID_ARGUMENT',
  payload_too_large: 'INVALID_ARGUMENT',
  svc_policy_violation: 'PERMISSION_DENIED',
  upstream_unavailable: 'UNAVAILABLE',
};

const choiceText = (e: RelayedEvent) => ((e.data as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ?? '');

const openaiChat = (model: string) => ({
  ask: (text: string): Json => ({ model, messages: [{ role: 'user', content: text }] }),
  stream: (body: Json): Json => ({ ...body, stream: true }),
  huge: (body: Json): Json => ({ ...body, messages: [{ role: 'system', content: FIVE_MB }, ...(body['messages'] as unknown[])] }),
  expectError: (r: CallResult, status: number, ourType: string) => void expectEnvelope(r, status, ourType),
  textOf: choiceText,
  expectCutError(e: RelayedEvent) {
    expect(e).toEqual({ event: null, data: expect.objectContaining({ error: expect.objectContaining({ code: 503, type: 'upstream_unavailable', message: 'upstream LLM provider unavailable' }) }) });
  },
});

const OPENAI: WireCase = {
  name: 'OpenAI chat completions',
  headers: (pat) => ({ authorization: `Bearer ${pat}`, 'x-svc-agent-id': 'wire-agent', 'x-forwarded-authorization': 'Bearer sk-provider' }),
  path: '/v1/proxy/chat/completions',
  streamPath: '/v1/proxy/chat/completions',
  ...openaiChat('gpt-4o'),
  bodyPaths: ['/v1/proxy/chat/completions', '/v1/proxy/completions', '/v1/proxy/embeddings', '/v1/proxy/responses'],
  badTypes: [
    ['/v1/proxy/chat/completions', { model: 'gpt-4o', messages: 'hi' }, 'messages'],
    ['/v1/proxy/chat/completions', { model: 'gpt-4o', messages: [42] }, 'messages[0]'],
    ['/v1/proxy/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: 'true' }, 'stream'],
    ['/v1/proxy/chat/completions', { model: 42, messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    ['/v1/proxy/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 42 }, 'prompt'],
    ['/v1/proxy/embeddings', { model: 'text-embedding-3-small', input: 'x', stream: true }, 'stream'],
    ['/v1/proxy/responses', { model: 'gpt-4o', input: 42 }, 'input'],
  ],
  notProxied: ['/v1/proxy/images/generations', '/v1/proxy/audio/transcriptions', '/v1/proxy/assistants', '/v1/proxy/chat'],
  getProxied: '/v1/proxy/chat/completions',
  getNotProxied: '/v1/proxy/files',
  record: { eventType: 'proxy.chat.completions', endpoint: 'chat', model: 'gpt-4o' },
  async sdkStream(base, pat, headers, onText) {
    const sdk = new OpenAI({ apiKey: pat, baseURL: `${base}/v1/proxy`, maxRetries: 0, defaultHeaders: headers });
    const stream = await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'count' }], stream: true });
    for await (const chunk of stream) onText(chunk.choices[0]?.delta?.content ?? '');
  },
};

const AZURE_VERSION = '2024-10-21';
const DEPLOYMENT = '/v1/proxy/azure/openai/deployments/gpt4o-prod';

const AZURE: WireCase = {
  name: 'Azure OpenAI',
  headers: (pat) => ({ 'api-key': pat, 'x-svc-agent-id': 'wire-agent', 'x-forwarded-api-key': 'azure-provider-key' }),
  path: `${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`,
  streamPath: `${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`,
  ...openaiChat('gpt-4o'),
  bodyPaths: [`${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`, `${DEPLOYMENT}/embeddings?api-version=${AZURE_VERSION}`],
  badTypes: [
    [`${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`, { model: 'gpt-4o', messages: 'hi' }, 'messages'],
    [`${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`, { model: 'gpt-4o', messages: { role: 'user', content: 'hi' } }, 'messages'],
    [`${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`, { model: 'gpt-4o', messages: [42] }, 'messages[0]'],
    [`${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: 'true' }, 'stream'],
    [`${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`, { model: 42, messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    [`${DEPLOYMENT}/chat/completions?api-version=2024`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, 'api-version'],
    [`${DEPLOYMENT}/embeddings?api-version=${AZURE_VERSION}`, { model: 'text-embedding-3-small', input: 42 }, 'input'],
    [`${DEPLOYMENT}/embeddings?api-version=${AZURE_VERSION}`, { model: 'text-embedding-3-small', input: 'x', stream: true }, 'stream'],
  ],
  notProxied: [
    `${DEPLOYMENT}/completions?api-version=${AZURE_VERSION}`,
    `${DEPLOYMENT}/images/generations?api-version=${AZURE_VERSION}`,
    `${DEPLOYMENT}/audio/transcriptions?api-version=${AZURE_VERSION}`,
    `/v1/proxy/azure/openai/assistants?api-version=${AZURE_VERSION}`,
    `${DEPLOYMENT}?api-version=${AZURE_VERSION}`,
  ],
  getProxied: `${DEPLOYMENT}/chat/completions?api-version=${AZURE_VERSION}`,
  getNotProxied: `/v1/proxy/azure/openai/deployments?api-version=${AZURE_VERSION}`,
  record: { eventType: 'proxy.azure.chat.completions', endpoint: 'azure.chat', model: 'gpt-4o' },
  async sdkStream(base, pat, headers, onText) {
    const sdk = new AzureOpenAI({ endpoint: `${base}/v1/proxy/azure`, apiKey: pat, apiVersion: AZURE_VERSION, deployment: 'gpt4o-prod', maxRetries: 0, defaultHeaders: headers });
    const stream = await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'count' }], stream: true });
    for await (const chunk of stream) onText(chunk.choices[0]?.delta?.content ?? '');
  },
};

const MESSAGES = '/v1/proxy/anthropic/v1/messages';
const CLAUDE = 'claude-sonnet-4-20250514';

const ANTHROPIC: WireCase = {
  name: 'Anthropic Messages',
  headers: (pat) => ({ 'x-api-key': pat, 'x-svc-agent-id': 'wire-agent', 'anthropic-version': '2023-06-01', 'x-forwarded-api-key': 'sk-ant-provider' }),
  path: MESSAGES,
  streamPath: MESSAGES,
  ask: (text) => ({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: text }] }),
  stream: (body) => ({ ...body, stream: true }),
  huge: (body) => ({ ...body, system: FIVE_MB }),
  bodyPaths: [MESSAGES, `${MESSAGES}/count_tokens`],
  badTypes: [
    [MESSAGES, { model: CLAUDE, max_tokens: 64, messages: 'hi' }, 'messages'],
    [MESSAGES, { model: CLAUDE, max_tokens: 64, messages: { role: 'user', content: 'hi' } }, 'messages'],
    [MESSAGES, { model: CLAUDE, max_tokens: 64, messages: ['hi'] }, 'messages[0]'],
    [MESSAGES, { model: CLAUDE, max_tokens: '64', messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
    [MESSAGES, { model: CLAUDE, max_tokens: 0, messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
    [MESSAGES, { model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: 'true' }, 'stream'],
    [MESSAGES, { model: 42, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    [`${MESSAGES}/count_tokens`, { model: CLAUDE, messages: 'hi' }, 'messages'],
  ],
  notProxied: ['/v1/proxy/anthropic/v1/complete', `${MESSAGES}/batches`, '/v1/proxy/anthropic/v1/files', '/v1/proxy/anthropic/messages'],
  getProxied: MESSAGES,
  getNotProxied: '/v1/proxy/anthropic/v1/models',
  expectError(r, status, ourType) {
    const e = expectEnvelope(r, status, ANTHROPIC_TYPES[ourType] ?? ourType);
    expect(r.body.type, JSON.stringify(e)).toBe('error');
  },
  textOf: (e) => ((e.data as { delta?: { text?: string } }).delta?.text ?? ''),
  expectCutError(e) {
    expect(e.event).toBe('error');
    expect(e.data).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'upstream LLM provider unavailable' } });
  },
  cutNames: ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta'],
  // Anthropic reports input tokens first, in message_start.
  record: { eventType: 'proxy.anthropic.messages', endpoint: 'anthropic.messages', model: CLAUDE, usage: { prompt_tokens: 31 } },
  async sdkStream(base, pat, headers, onText) {
    const sdk = new Anthropic({ apiKey: pat, baseURL: `${base}/v1/proxy/anthropic`, maxRetries: 0, defaultHeaders: headers });
    const stream = await sdk.messages.create({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'count' }], stream: true });
    for await (const ev of stream) if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') onText(ev.delta.text);
  },
};

const MODELS = '/v1/proxy/gemini/v1beta/models';
const GENERATE = `${MODELS}/gemini-2.0-flash:generateContent`;

const GEMINI: WireCase = {
  name: 'Gemini',
  headers: (pat) => ({ 'x-goog-api-key': pat, 'x-svc-agent-id': 'wire-agent', 'x-forwarded-api-key': 'google-provider-key' }),
  path: GENERATE,
  streamPath: `${MODELS}/gemini-2.0-flash:streamGenerateContent?alt=sse`,
  ask: (text) => ({ contents: [{ role: 'user', parts: [{ text }] }] }),
  stream: (body) => body,
  huge: (body) => ({ ...body, systemInstruction: { parts: [{ text: FIVE_MB }] } }),
  bodyPaths: [GENERATE, `${MODELS}/gemini-2.0-flash:streamGenerateContent?alt=sse`],
  badTypes: [
    [GENERATE, { contents: { role: 'user', parts: [{ text: 'hi' }] } }, 'contents'],
    [GENERATE, { contents: 'hi' }, 'contents'],
    [GENERATE, { contents: [] }, 'contents'],
    [`${MODELS}/gemini-2.0-flash:streamGenerateContent?alt=sse`, { contents: { parts: [{ text: 'hi' }] } }, 'contents'],
    [GENERATE, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], stream: 'true' }, 'stream'],
    [`${MODELS}/gemini-2.0-flash:countTokens`, { contents: 'hi' }, 'contents'],
    [`${MODELS}/text-embedding-004:embedContent`, { content: 'hi' }, 'content'],
    [`${MODELS}/text-embedding-004:batchEmbedContents`, { requests: {} }, 'requests'],
    [`${MODELS}/..%2Fx:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, 'model'],
  ],
  notProxied: [
    `${MODELS}/x:predict`,
    `${MODELS}/gemini-2.0-flash:generateContentX`,
    `${MODELS}/gemini-2.0-flash`,
    '/v1/proxy/gemini/v2/models/gemini-2.0-flash:generateContent',
    '/v1/proxy/gemini/v1beta/tunedModels/mine:generateContent',
    '/v1/proxy/gemini/v1beta/cachedContents',
    '/v1/proxy/gemini/upload/v1beta/files',
  ],
  getProxied: GENERATE,
  getNotProxied: MODELS,
  expectError(r, status, ourType) {
    const e = expectEnvelope(r, status, ourType);
    expect(e['status']).toBe(GOOGLE_STATUSES[ourType]);
  },
  textOf: (e) => ((e.data as { candidates?: { content?: { parts?: { text?: string }[] } }[] }).candidates?.[0]?.content?.parts?.[0]?.text ?? ''),
  expectCutError(e) {
    expect(e).toEqual({ event: null, data: expect.objectContaining({ error: expect.objectContaining({ code: 503, status: 'UNAVAILABLE', message: 'upstream LLM provider unavailable' }) }) });
  },
  record: { eventType: 'proxy.gemini.streamGenerateContent', endpoint: 'gemini.streamGenerateContent', model: 'gemini-2.0-flash' },
  async sdkStream(base, pat, headers, onText) {
    const sdk = new GoogleGenAI({ apiKey: pat, httpOptions: { baseUrl: `${base}/v1/proxy/gemini`, headers } });
    for await (const chunk of await sdk.models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'count' })) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) onText(part.text ?? '');
    }
  },
};

/** Every wire format the proxy speaks, as the conformance suite drives it. */
export const WIRE_CASES: readonly WireCase[] = [OPENAI, AZURE, ANTHROPIC, GEMINI];
