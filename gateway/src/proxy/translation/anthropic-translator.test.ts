import OpenAI, { APIError, AuthenticationError, BadRequestError, InternalServerError, NotFoundError, PermissionDeniedError, RateLimitError } from 'openai';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors.js';
import { DEFAULT_MAX_TOKENS } from './anthropic-request.js';
import { anthropicTranslator as T } from './anthropic-translator.js';
import { anthropicMessagesProblem } from '../../../test/helpers/provider-request-schemas.js';
import type { Json } from './chat-translator.js';

const TARGET = 'claude-main';
const MODEL = 'claude-sonnet-4-5';

/* ---------- Anthropic's documented request shape (Messages API, "Create a Message") ---------- */

const REQUEST_KEYS = new Set(['model', 'max_tokens', 'messages', 'system', 'tools', 'tool_choice', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'metadata', 'output_config', 'service_tier', 'stream', 'thinking']);
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function obj(v: unknown): Json {
  expect(v !== null && typeof v === 'object' && !Array.isArray(v), `${JSON.stringify(v)} is an object`).toBe(true);
  return v as Json;
}

function checkBlock(b: Json, role: string, earlierToolUses: ReadonlySet<string>): void {
  switch (b['type']) {
    case 'text':
      expect(typeof b['text'] === 'string' && b['text'] !== '', 'text blocks are non-empty').toBe(true);
      break;
    case 'image': {
      const s = obj(b['source']);
      if (s['type'] === 'base64') {
        expect(IMAGE_TYPES.has(s['media_type'] as string)).toBe(true);
        expect(typeof s['data']).toBe('string');
      } else {
        expect(s['type']).toBe('url');
        expect(String(s['url'])).toMatch(/^https?:\/\//);
      }
      break;
    }
    case 'document':
      expect(obj(b['source'])).toMatchObject({ type: 'base64', media_type: 'application/pdf' });
      break;
    case 'tool_use':
      expect(role).toBe('assistant');
      expect(typeof b['id']).toBe('string');
      expect(typeof b['name']).toBe('string');
      obj(b['input']);
      break;
    case 'tool_result':
      expect(role).toBe('user');
      expect(earlierToolUses.has(b['tool_use_id'] as string), `tool_result ${String(b['tool_use_id'])} answers a tool_use of the turn before`).toBe(true);
      if (b['content'] !== undefined) expect(typeof b['content'] === 'string' || Array.isArray(b['content'])).toBe(true);
      break;
    default:
      throw new Error(`undocumented block ${String(b['type'])}`);
  }
}

/** Fails unless `body` is a Messages API request as Anthropic documents it. */
function checkAnthropic(body: Json): void {
  for (const k of Object.keys(body)) expect(REQUEST_KEYS.has(k), `documented field ${k}`).toBe(true);
  expect(typeof body['model']).toBe('string');
  expect(Number.isInteger(body['max_tokens']) && (body['max_tokens'] as number) >= 1, 'max_tokens is always there').toBe(true);
  const system = body['system'];
  if (system !== undefined) {
    if (typeof system !== 'string') for (const b of system as Json[]) expect(b['type'] === 'text' && typeof b['text'] === 'string' && b['text'] !== '').toBe(true);
  }
  const messages = body['messages'] as Json[];
  expect(Array.isArray(messages) && messages.length > 0).toBe(true);
  let previous: Json | null = null;
  for (const m of messages) {
    expect(['user', 'assistant']).toContain(m['role']);
    if (previous !== null) expect(m['role'], 'turns alternate').not.toBe(previous['role']);
    const uses = new Set<string>();
    if (previous !== null) for (const b of previous['content'] as Json[]) if (b['type'] === 'tool_use') uses.add(b['id'] as string);
    const content = m['content'] as Json[];
    expect(Array.isArray(content) && content.length > 0).toBe(true);
    let seenOther = false;
    for (const b of content) {
      checkBlock(obj(b), m['role'] as string, uses);
      if (b['type'] === 'tool_result') expect(seenOther, 'tool results come first in their turn').toBe(false);
      else seenOther = true;
    }
    if (previous !== null && previous['role'] === 'assistant') {
      const answered = new Set(content.filter((b) => b['type'] === 'tool_result').map((b) => b['tool_use_id']));
      for (const id of uses) expect(answered.has(id), `tool_use ${id} has its tool_result in the next turn`).toBe(true);
    }
    previous = m;
  }
  const tools = body['tools'] as Json[] | undefined;
  if (tools !== undefined) for (const t of tools) expect(typeof t['name'] === 'string' && obj(t['input_schema'])['type'] === 'object').toBe(true);
  const choice = body['tool_choice'];
  if (choice !== undefined) {
    expect(tools, 'a tool choice comes with tools').toBeDefined();
    const c = obj(choice);
    expect(['auto', 'any', 'tool', 'none']).toContain(c['type']);
    if (c['type'] === 'tool') expect(tools?.map((t) => t['name'])).toContain(c['name']);
  }
  for (const k of ['temperature', 'top_p']) {
    if (body[k] === undefined) continue;
    expect(body[k] as number).toBeGreaterThanOrEqual(0);
    expect(body[k] as number).toBeLessThanOrEqual(1);
  }
  if (body['stop_sequences'] !== undefined) expect((body['stop_sequences'] as unknown[]).every((s) => typeof s === 'string')).toBe(true);
  if (body['output_config'] !== undefined) {
    const format = obj(body['output_config'])['format'];
    if (format !== undefined) {
      expect(obj(format)['type']).toBe('json_schema');
      obj(obj(format)['schema']);
    }
  }
}

function request(body: Json): Json {
  const r = T.request(body, MODEL, TARGET);
  expect(r.path).toBe('/v1/messages');
  expect(r.headers).toEqual({ 'anthropic-version': '2023-06-01' });
  checkAnthropic(r.body);
  // And the schema the end-to-end tests' mock Anthropic refuses bodies by.
  expect(anthropicMessagesProblem(r.body)).toBeNull();
  return r.body;
}

/** The GatewayError a request is refused with. */
function refused(body: Json): GatewayError {
  try {
    T.request(body, MODEL, TARGET);
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError);
    const g = e as GatewayError;
    expect(g.status).toBe(400);
    expect(g.code).toBe('invalid_request');
    return g;
  }
  throw new Error(`not refused: ${JSON.stringify(body)}`);
}

const hi = [{ role: 'user', content: 'hi' }];
const text = (t: string): Json => ({ type: 'text', text: t });
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('Anthropic translation: the request', () => {
  it('sends the target model, the required max_tokens (4096 when the agent names none), system blocks and a user turn', () => {
    const r = T.request({ model: 'gpt-4o', messages: [{ role: 'system', content: 'be brief' }, ...hi] }, MODEL, TARGET);
    expect(r).toEqual({
      path: '/v1/messages',
      headers: { 'anthropic-version': '2023-06-01' },
      stream: false,
      body: { model: MODEL, max_tokens: DEFAULT_MAX_TOKENS, system: [text('be brief')], messages: [{ role: 'user', content: [text('hi')] }] },
    });
    expect(DEFAULT_MAX_TOKENS).toBe(4096);
  });

  it('takes max_completion_tokens over the deprecated max_tokens, and refuses a length that is not a positive integer', () => {
    expect(request({ messages: hi, max_tokens: 100 })['max_tokens']).toBe(100);
    expect(request({ messages: hi, max_tokens: 100, max_completion_tokens: 300 })['max_tokens']).toBe(300);
    expect(refused({ messages: hi, max_tokens: 0 }).message).toMatch(/^max_tokens: /);
    expect(refused({ messages: hi, max_completion_tokens: 2.5 }).message).toMatch(/^max_completion_tokens: /);
  });

  it('gathers system and developer messages, wherever they stand, into system text blocks in their order', () => {
    const body = request({
      messages: [
        { role: 'developer', content: [text('rule one'), text('rule two')] },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a1' },
        { role: 'system', content: 'late rule' },
        { role: 'user', content: 'q2' },
      ],
    });
    expect(body['system']).toEqual([text('rule one'), text('rule two'), text('late rule')]);
    expect(body['messages']).toEqual([
      { role: 'user', content: [text('q1')] },
      { role: 'assistant', content: [text('a1')] },
      { role: 'user', content: [text('q2')] },
    ]);
    expect(refused({ messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }, ...hi] }).message).toMatch(/^messages\[0\]\.content\[0\]: /);
  });

  it('merges consecutive turns of one role, as Anthropic alternates user and assistant', () => {
    const body = request({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: [text('b'), text('c')] },
        { role: 'assistant', content: 'd' },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'e' }] },
        { role: 'user', content: 'f' },
      ],
    });
    expect(body['messages']).toEqual([
      { role: 'user', content: [text('a'), text('b'), text('c')] },
      { role: 'assistant', content: [text('d'), text('e')] },
      { role: 'user', content: [text('f')] },
    ]);
  });

  it('alternates whatever order user, assistant, tool-calling assistant and tool messages come in', () => {
    const kinds = ['user', 'assistant', 'call', 'tool'] as const;
    let sequences: (typeof kinds)[number][][] = [[]];
    for (let len = 1; len <= 6; len++) sequences = sequences.concat(sequences.filter((s) => s.length === len - 1).flatMap((s) => kinds.map((k) => [...s, k])));
    let checked = 0;
    for (const seq of sequences) {
      // As OpenAI requires: each call's two results follow it before anything else, the first message is the user's.
      let pending: string[] = [];
      const messages: Json[] = [];
      let ok = seq[0] === 'user';
      seq.forEach((k, i) => {
        if (k !== 'tool' && pending.length > 0) ok = false;
        if (k === 'user') messages.push({ role: 'user', content: `u${i}` });
        else if (k === 'assistant') messages.push({ role: 'assistant', content: `a${i}` });
        else if (k === 'call') {
          pending = [`call_${i}a`, `call_${i}b`];
          messages.push({ role: 'assistant', content: i % 2 ? `thinking aloud ${i}` : null, tool_calls: pending.map((id) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })) });
        } else {
          const id = pending.shift();
          if (id === undefined) ok = false;
          messages.push({ role: 'tool', tool_call_id: id ?? 'none', content: `r${i}` });
        }
      });
      if (!ok || pending.length > 0) continue;
      request({ messages, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] });
      checked++;
    }
    expect(checked).toBe(80);
  });

  it('sends images as base64 sources (data URLs) or URL sources (http and https), and refuses what Anthropic cannot take', () => {
    const body = request({
      messages: [
        {
          role: 'user',
          content: [
            text('what is this?'),
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect((body['messages'] as Json[])[0]).toEqual({
      role: 'user',
      content: [text('what is this?'), { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } }],
    });
    const part = (p: Json): Json => ({ messages: [{ role: 'user', content: [text('x'), p] }] });
    expect(refused(part({ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } })).message).toBe(
      'messages[0].content[1].image_url.url: target claude-main (anthropic) takes JPEG, PNG, GIF or WebP images, not image/bmp',
    );
    expect(refused(part({ type: 'image_url', image_url: { url: 'ftp://example.com/cat.jpg' } })).message).toMatch(/^messages\[0\]\.content\[1\]\.image_url\.url: target claude-main \(anthropic\)/);
    expect(refused(part({ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } })).message).toBe('messages[0].content[1]: target claude-main (anthropic) takes no audio');
  });

  it('sends an inline PDF file part as a document block, and refuses file ids and other files', () => {
    const body = request({
      messages: [
        {
          role: 'user',
          content: [{ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } }, { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi1=' } }, text('summarise')],
        },
      ],
    });
    expect((body['messages'] as Json[])[0]).toEqual({
      role: 'user',
      content: [
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'a.pdf' },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi1=' } },
        text('summarise'),
      ],
    });
    expect(refused({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] }).message).toMatch(/^messages\[0\]\.content\[0\]\.file: target claude-main \(anthropic\)/);
    expect(refused({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: 'data:text/csv;base64,YSxi' } }] }] }).message).toMatch(/^messages\[0\]\.content\[0\]\.file\.file_data: /);
  });

  it('sends function tools with their parameters as the input schema, strict kept, and each tool choice', () => {
    const tools = [
      { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true } },
      { type: 'function', function: { name: 'now' } },
    ];
    const body = request({ messages: hi, tools });
    expect(body['tools']).toEqual([
      { name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(body['tool_choice']).toBeUndefined();
    expect(request({ messages: hi, tools, tool_choice: 'auto' })['tool_choice']).toEqual({ type: 'auto' });
    expect(request({ messages: hi, tools, tool_choice: 'none' })['tool_choice']).toEqual({ type: 'none' });
    expect(request({ messages: hi, tools, tool_choice: 'required' })['tool_choice']).toEqual({ type: 'any' });
    expect(request({ messages: hi, tools, tool_choice: { type: 'function', function: { name: 'now' } } })['tool_choice']).toEqual({ type: 'tool', name: 'now' });
    expect(request({ messages: hi, tools, parallel_tool_calls: false })['tool_choice']).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(request({ messages: hi, tools, tool_choice: 'required', parallel_tool_calls: false })['tool_choice']).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(request({ messages: hi, tools, tool_choice: 'none', parallel_tool_calls: false })['tool_choice']).toEqual({ type: 'none' });
    expect(request({ messages: hi, tools, parallel_tool_calls: true })['tool_choice']).toBeUndefined();
    // With no tools, auto and none say nothing; asking for a call is a mistake.
    expect(request({ messages: hi, tool_choice: 'none', parallel_tool_calls: false })['tool_choice']).toBeUndefined();
    expect(refused({ messages: hi, tool_choice: 'required' }).message).toMatch(/^tool_choice: /);
    expect(refused({ messages: hi, tools: [{ type: 'custom', custom: { name: 'x' } }] }).message).toBe('tools[0].type: target claude-main (anthropic) has no custom tools, only function tools');
    expect(refused({ messages: hi, tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } } }).message).toMatch(/^tool_choice\.type: target claude-main \(anthropic\)/);
  });

  it('turns a two-turn tool loop into tool_use and tool_result blocks with the ids kept, the results in one user turn first', () => {
    const body = request({
      messages: [
        { role: 'system', content: 'use tools' },
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'toolu_01B', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_01A', content: '18°C' },
        { role: 'tool', tool_call_id: 'toolu_01B', content: [text('21°C'), text(' sunny')] },
        { role: 'user', content: 'And which is warmer?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    });
    expect(body['messages']).toEqual([
      { role: 'user', content: [text('Weather in Paris and Rome?')] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: '18°C' },
          { type: 'tool_result', tool_use_id: 'toolu_01B', content: [text('21°C'), text(' sunny')] },
          text('And which is warmer?'),
        ],
      },
    ]);
  });

  it('puts a tool result before the text of the user turn it joins', () => {
    const body = request({
      messages: [
        ...hi,
        { role: 'assistant', content: 'calling', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }] },
        { role: 'user', content: 'meanwhile' },
        { role: 'tool', tool_call_id: 'c1', content: '' },
      ],
      tools: [{ type: 'function', function: { name: 'f' } }],
    });
    expect((body['messages'] as Json[])[1]).toEqual({ role: 'assistant', content: [text('calling'), { type: 'tool_use', id: 'c1', name: 'f', input: {} }] });
    expect((body['messages'] as Json[])[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1' }, text('meanwhile')] });
  });

  it("encodes a tool call id Anthropic would refuse the same way on the call and on its result, so they still pair", () => {
    const body = request({
      messages: [
        ...hi,
        { role: 'assistant', content: null, tool_calls: [{ id: 'functions.get_weather:0', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'functions.get_weather:0', content: 'sunny' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
    const id = (((body['messages'] as Json[])[1] as Json)['content'] as Json[])[0]?.['id'];
    expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect((((body['messages'] as Json[])[2] as Json)['content'] as Json[])[0]?.['tool_use_id']).toBe(id);
  });

  it('refuses tool call arguments that are not a JSON object, naming the call', () => {
    const call = (args: string): Json => ({
      messages: [...hi, { role: 'assistant', content: null, tool_calls: [{ id: 'ok', type: 'function', function: { name: 'f', arguments: '{}' } }, { id: 'c', type: 'function', function: { name: 'f', arguments: args } }] }],
    });
    expect(refused(call('{"city": "Par')).message).toBe('messages[1].tool_calls[1].function.arguments: must be a JSON object in a string');
    expect(refused(call('[1,2]')).message).toMatch(/^messages\[1\]\.tool_calls\[1\]\.function\.arguments: /);
    expect(refused(call('null')).message).toMatch(/^messages\[1\]\.tool_calls\[1\]\.function\.arguments: /);
    expect(refused({ messages: [...hi, { role: 'tool', content: 'x' }] }).message).toBe('messages[1].tool_call_id: required string');
  });

  it('maps temperature, top_p, stop, user and stream, within what Anthropic takes', () => {
    const body = request({ messages: hi, temperature: 0.2, top_p: 0.9, stop: 'END', user: 'u-1', stream: true, stream_options: { include_usage: true } });
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.9, stop_sequences: ['END'], metadata: { user_id: 'u-1' }, stream: true });
    expect(T.request({ messages: hi, stream: true }, MODEL, TARGET).stream).toBe(true);
    expect(request({ messages: hi, stream: false })['stream']).toBeUndefined();
    expect(request({ messages: hi, stop: ['a', 'b'] })['stop_sequences']).toEqual(['a', 'b']);
    expect(request({ messages: hi, stop: [] })['stop_sequences']).toBeUndefined();
    // top_p 1 is sampling from everything, as without it; newer Claude models refuse it beside a temperature.
    expect(request({ messages: hi, temperature: 1, top_p: 1 })).not.toHaveProperty('top_p');
    expect(request({ messages: hi, user: 'u-1', safety_identifier: 'hash-9' })['metadata']).toEqual({ user_id: 'hash-9' });
    expect(refused({ messages: hi, temperature: 1.5 }).message).toBe('temperature: target claude-main (anthropic) takes 0 to 1, not 1.5');
    expect(refused({ messages: hi, top_p: -1 }).message).toMatch(/^top_p: /);
    expect(refused({ messages: hi, stop: [1] }).message).toMatch(/^stop: /);
  });

  it('asks for a JSON schema through output_config.format and refuses a schemaless JSON object it cannot guarantee', () => {
    const schema = { type: 'object', properties: { primes: { type: 'array', items: { type: 'number' } } }, required: ['primes'], additionalProperties: false };
    const body = request({ messages: hi, response_format: { type: 'json_schema', json_schema: { name: 'primes', strict: true, schema } } });
    expect(body['output_config']).toEqual({ format: { type: 'json_schema', schema } });
    expect(request({ messages: hi, response_format: { type: 'text' } })).not.toHaveProperty('output_config');
    expect(refused({ messages: hi, response_format: { type: 'json_object' } }).message).toMatch(/^response_format: target claude-main \(anthropic\) cannot guarantee a JSON object without a schema/);
    expect(refused({ messages: hi, response_format: { type: 'json_schema', json_schema: { name: 'x' } } }).message).toMatch(/^response_format\.json_schema\.schema: target claude-main \(anthropic\)/);
  });

  it('maps reasoning_effort to output_config.effort and service_tier to Anthropic tiers, refusing values with no equivalent', () => {
    expect(request({ messages: hi, reasoning_effort: 'high' })['output_config']).toEqual({ effort: 'high' });
    expect(request({ messages: hi, reasoning_effort: 'low', response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } } })['output_config']).toEqual({
      effort: 'low',
      format: { type: 'json_schema', schema: { type: 'object' } },
    });
    expect(refused({ messages: hi, reasoning_effort: 'minimal' }).message).toMatch(/^reasoning_effort: target claude-main \(anthropic\)/);
    expect(request({ messages: hi, service_tier: 'auto' })['service_tier']).toBe('auto');
    expect(request({ messages: hi, service_tier: 'default' })['service_tier']).toBe('standard_only');
    expect(refused({ messages: hi, service_tier: 'flex' }).message).toMatch(/^service_tier: target claude-main \(anthropic\)/);
  });

  it.each([
    ['n', 2, 'n: target claude-main (anthropic) cannot return more than one choice'],
    ['logprobs', true, 'logprobs: target claude-main (anthropic) returns no log probabilities'],
    ['top_logprobs', 3, 'top_logprobs: target claude-main (anthropic) returns no log probabilities'],
    ['frequency_penalty', 0.5, 'frequency_penalty: target claude-main (anthropic) has no frequency penalty'],
    ['presence_penalty', -1, 'presence_penalty: target claude-main (anthropic) has no presence penalty'],
    ['logit_bias', { '50256': -100 }, 'logit_bias: target claude-main (anthropic) has no logit bias'],
    ['seed', 42, 'seed: target claude-main (anthropic) has no seed: its sampling cannot be made repeatable'],
    ['modalities', ['text', 'audio'], 'modalities: target claude-main (anthropic) answers in text only'],
    ['audio', { voice: 'alloy', format: 'mp3' }, 'audio: target claude-main (anthropic) answers in text only'],
    ['prediction', { type: 'content', content: 'x' }, 'prediction: target claude-main (anthropic) has no predicted outputs'],
    ['web_search_options', {}, 'web_search_options: target claude-main (anthropic) has no OpenAI web search (its own web search is a server tool this translation does not send)'],
    ['functions', [{ name: 'f' }], 'functions: target claude-main (anthropic) takes tools, not the legacy functions'],
    ['function_call', 'auto', 'function_call: target claude-main (anthropic) takes tool_choice, not the legacy function_call'],
    ['verbosity', 'low', 'verbosity: target claude-main (anthropic) has no verbosity setting'],
    ['some_new_field', 1, 'some_new_field: target claude-main (anthropic) has no equivalent'],
  ])('refuses %s it cannot express, naming the field and the target', (field, value, message) => {
    expect(refused({ messages: hi, [field]: value }).message).toBe(message);
  });

  it('accepts what has no effect: neutral values, OpenAI-side storage and cache hints, explicit nulls', () => {
    const body = request({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi', name: 'alice' }],
      n: 1,
      logprobs: false,
      top_logprobs: 0,
      frequency_penalty: 0,
      presence_penalty: 0,
      logit_bias: {},
      modalities: ['text'],
      verbosity: 'medium',
      store: true,
      metadata: { run: '7' },
      prompt_cache_key: 'k',
      prompt_cache_retention: '24h',
      stream_options: { include_usage: true },
      seed: null,
      temperature: null,
      tools: null,
    });
    expect(body).toEqual({ model: MODEL, max_tokens: DEFAULT_MAX_TOKENS, messages: [{ role: 'user', content: [text('hi')] }] });
  });

  it('refuses legacy function messages and calls, audio, unknown roles and parts', () => {
    expect(refused({ messages: [...hi, { role: 'function', name: 'f', content: 'x' }] }).message).toBe('messages[1].role: target claude-main (anthropic) takes tool messages, not the legacy function role');
    expect(refused({ messages: [...hi, { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }] }).message).toMatch(/^messages\[1\]\.function_call: /);
    expect(refused({ messages: [...hi, { role: 'assistant', content: null, audio: { id: 'a' } }] }).message).toMatch(/^messages\[1\]\.audio: /);
    expect(refused({ messages: [...hi, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'x', input: '' } }] }] }).message).toMatch(/^messages\[1\]\.tool_calls\[0\]\.type: /);
    expect(refused({ messages: [{ role: 'critic', content: 'x' }] }).message).toBe('messages[0].role: unknown role critic');
    expect(refused({ messages: [{ role: 'user', content: [{ type: 'video_url', video_url: {} }] }] }).message).toBe('messages[0].content[0].type: target claude-main (anthropic) takes no video_url content parts');
    expect(refused({}).message).toBe('messages: required array');
  });
});

/* ---------- answers ---------- */

function answer(over: Json): Json {
  return T.answer({ id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', stop_reason: 'end_turn', stop_sequence: null, content: [], usage: { input_tokens: 10, output_tokens: 5 }, ...over }, MODEL);
}

describe('Anthropic translation: the whole answer', () => {
  it('joins the text blocks as the message, names the model that answered, and counts cached input in the prompt', () => {
    const a = answer({
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'text', text: 'Hello' },
        { type: 'text', text: ', world' },
      ],
      usage: { input_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 30, output_tokens: 7, output_tokens_details: { thinking_tokens: 3 } },
    });
    expect(a).toEqual({
      id: 'msg_01',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'claude-sonnet-4-5-20250929',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello, world', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 142, completion_tokens: 7, total_tokens: 149, prompt_tokens_details: { cached_tokens: 100 }, completion_tokens_details: { reasoning_tokens: 3 } },
    });
    expect(Math.abs((a['created'] as number) - Date.now() / 1000)).toBeLessThan(5);
    expect(answer({ model: undefined })['model']).toBe(MODEL);
  });

  it('gives tool_use blocks as tool calls with their ids, which go back as the same tool_use blocks', () => {
    const a = answer({
      stop_reason: 'tool_use',
      content: [
        { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_01B', name: 'get_weather', input: { city: 'Rome', units: { t: 'C' } } },
      ],
    });
    const choice = (a['choices'] as Json[])[0] as Json;
    expect(choice['finish_reason']).toBe('tool_calls');
    const message = choice['message'] as Json;
    expect(message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'toolu_01B', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome","units":{"t":"C"}}' } },
      ],
    });
    const next = request({
      messages: [...hi, message, { role: 'tool', tool_call_id: 'toolu_01A', content: '18' }, { role: 'tool', tool_call_id: 'toolu_01B', content: '21' }],
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
    expect((next['messages'] as Json[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_01B', name: 'get_weather', input: { city: 'Rome', units: { t: 'C' } } },
      ],
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['pause_turn', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ])('gives stop_reason %s as finish_reason %s', (stop, finish) => {
    expect(((answer({ stop_reason: stop, content: [text('x')] })['choices'] as Json[])[0] as Json)['finish_reason']).toBe(finish);
  });

  it('leaves out reasoning tokens Anthropic does not report, and gives an empty text for an empty answer', () => {
    const a = answer({ content: [] });
    expect(a['usage']).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 0 } });
    expect((((a['choices'] as Json[])[0] as Json)['message'] as Json)['content']).toBe('');
  });
});

/* ---------- streams ---------- */

type Event = [string, Json];

function run(events: readonly Event[], includeUsage: boolean): Json[] {
  const s = T.stream(MODEL, includeUsage);
  const out: Json[] = [];
  for (const [name, data] of events) out.push(...s.event(name, data));
  out.push(...s.end());
  return out;
}

/** The chunks as the OpenAI SDK's own stream helper accumulates them into a chat completion. */
async function accumulate(chunks: readonly Json[]): Promise<Json> {
  const bytes = new TextEncoder().encode(chunks.map((c) => `${JSON.stringify(c)}\n`).join(''));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  return (await ChatCompletionStream.fromReadableStream(stream).finalChatCompletion()) as unknown as Json;
}

const START: Event = ['message_start', { type: 'message_start', message: { id: 'msg_S', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 25, cache_read_input_tokens: 5, output_tokens: 1 } } }];
const STOP: Event = ['message_stop', { type: 'message_stop' }];
const PING: Event = ['ping', { type: 'ping' }];
const blockStart = (index: number, block: Json): Event => ['content_block_start', { type: 'content_block_start', index, content_block: block }];
const delta = (index: number, d: Json): Event => ['content_block_delta', { type: 'content_block_delta', index, delta: d }];
const blockStop = (index: number): Event => ['content_block_stop', { type: 'content_block_stop', index }];
const messageDelta = (stop: string, usage: Json): Event => ['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage }];

const TEXT_STREAM: readonly Event[] = [
  START,
  blockStart(0, { type: 'text', text: '' }),
  PING,
  delta(0, { type: 'text_delta', text: 'Hello' }),
  delta(0, { type: 'text_delta', text: ', world' }),
  blockStop(0),
  messageDelta('end_turn', { output_tokens: 15 }),
  STOP,
];

describe('Anthropic translation: the stream', () => {
  it('makes a role chunk first, content deltas, a finish chunk and, when asked, a usage chunk', async () => {
    const chunks = run(TEXT_STREAM, true);
    const base = { id: 'msg_S', object: 'chat.completion.chunk', created: expect.any(Number), model: 'claude-sonnet-4-5-20250929', usage: null };
    const choice = (d: Json, finish: string | null): Json => ({ ...base, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
    expect(chunks).toEqual([
      choice({ role: 'assistant', content: '' }, null),
      choice({ content: 'Hello' }, null),
      choice({ content: ', world' }, null),
      choice({}, 'stop'),
      { ...base, choices: [], usage: { prompt_tokens: 30, completion_tokens: 15, total_tokens: 45, prompt_tokens_details: { cached_tokens: 5 } } },
    ]);
    const done = await accumulate(chunks);
    expect(done).toMatchObject({ id: 'msg_S', choices: [{ message: { role: 'assistant', content: 'Hello, world' }, finish_reason: 'stop' }] });
  });

  it('sends no usage chunk nor usage fields unless asked', () => {
    const chunks = run(TEXT_STREAM, false);
    expect(chunks).toHaveLength(4);
    for (const c of chunks) expect(c).not.toHaveProperty('usage');
  });

  it('streams two parallel tool calls: index, id and name first, then their argument pieces', async () => {
    const chunks = run(
      [
        START,
        blockStart(0, { type: 'text', text: '' }),
        delta(0, { type: 'text_delta', text: 'Checking both.' }),
        blockStop(0),
        blockStart(1, { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: {} }),
        delta(1, { type: 'input_json_delta', partial_json: '' }),
        delta(1, { type: 'input_json_delta', partial_json: '{"city": ' }),
        delta(1, { type: 'input_json_delta', partial_json: '"Paris"}' }),
        blockStop(1),
        blockStart(2, { type: 'tool_use', id: 'toolu_01B', name: 'get_weather', input: {} }),
        delta(2, { type: 'input_json_delta', partial_json: '{"city": "Ro' }),
        delta(2, { type: 'input_json_delta', partial_json: 'me"}' }),
        blockStop(2),
        messageDelta('tool_use', { output_tokens: 89 }),
        STOP,
      ],
      true,
    );
    const deltas = chunks.filter((c) => (c['choices'] as Json[]).length > 0).map((c) => ((c['choices'] as Json[])[0] as Json)['delta']);
    expect(deltas).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Checking both.' },
      { tool_calls: [{ index: 0, id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { tool_calls: [{ index: 1, id: 'toolu_01B', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{"city": "Ro' } }] },
      { tool_calls: [{ index: 1, function: { arguments: 'me"}' } }] },
      {},
    ]);
    const done = await accumulate(chunks);
    expect(done).toMatchObject({
      choices: [
        {
          finish_reason: 'tool_calls',
          message: {
            content: 'Checking both.',
            tool_calls: [
              { id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
              { id: 'toolu_01B', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } },
            ],
          },
        },
      ],
    });
    expect(chunks.at(-1)?.['usage']).toEqual({ prompt_tokens: 30, completion_tokens: 89, total_tokens: 119, prompt_tokens_details: { cached_tokens: 5 } });
  });

  it('makes nothing of thinking, signature and citation deltas, and reads message_delta usage that restates the input', () => {
    const chunks = run(
      [
        START,
        blockStart(0, { type: 'thinking', thinking: '' }),
        delta(0, { type: 'thinking_delta', thinking: 'let me think' }),
        delta(0, { type: 'signature_delta', signature: 'EqQB' }),
        blockStop(0),
        blockStart(1, { type: 'text', text: '' }),
        delta(1, { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'x' } }),
        delta(1, { type: 'text_delta', text: 'Answer' }),
        blockStop(1),
        messageDelta('max_tokens', { input_tokens: 40, cache_read_input_tokens: 5, cache_creation_input_tokens: 10, output_tokens: 20, output_tokens_details: { thinking_tokens: 12 } }),
        STOP,
      ],
      true,
    );
    expect(chunks.map((c) => (c['choices'] as Json[])[0]?.['delta'] ?? null)).toEqual([{ role: 'assistant', content: '' }, { content: 'Answer' }, {}, null]);
    expect(((chunks[2]?.['choices'] as Json[])[0] as Json)['finish_reason']).toBe('length');
    expect(chunks[3]?.['usage']).toEqual({ prompt_tokens: 55, completion_tokens: 20, total_tokens: 75, prompt_tokens_details: { cached_tokens: 5 }, completion_tokens_details: { reasoning_tokens: 12 } });
  });

  it('sends the usage chunk once: at message_stop, or at the end when the stream ended without one', () => {
    const s = T.stream(MODEL, true);
    for (const [n, d] of TEXT_STREAM.slice(0, -1)) s.event(n, d);
    const end = s.end();
    expect(end).toHaveLength(1);
    expect(end[0]?.['usage']).toMatchObject({ completion_tokens: 15 });
    expect(s.end()).toEqual([]);
    expect(s.event(STOP[0], STOP[1])).toEqual([]);
  });

  it('reads the event type from the data when the SSE event has no name, and opens with the role even without message_start', () => {
    const chunks = run([[null as unknown as string, delta(0, { type: 'text_delta', text: 'x' })[1]]], false);
    expect(chunks.map((c) => ((c['choices'] as Json[])[0] as Json)['delta'])).toEqual([{ role: 'assistant', content: '' }, { content: 'x' }]);
    expect(chunks[0]?.['model']).toBe(MODEL);
  });

  it('gives an error event mid-stream as the OpenAI in-stream error the SDK raises, and nothing after it', async () => {
    const s = T.stream(MODEL, true);
    const sent: Json[] = [...s.event(...START), ...s.event(...blockStart(0, { type: 'text', text: '' })), ...s.event(...delta(0, { type: 'text_delta', text: 'Hel' }))];
    const error = s.event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(error).toEqual([{ error: { message: 'Overloaded', type: 'server_error', param: null, code: 'overloaded' } }]);
    expect(s.event(...delta(0, { type: 'text_delta', text: 'lo' }))).toEqual([]);
    expect(s.event(...STOP)).toEqual([]);
    expect(s.end()).toEqual([]);
    // The openai SDK reading these as SSE (through its own fetch) gets the text, then raises the error.
    const sse = [...sent, ...error].map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
    const client = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch: async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }) });
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let got = '';
    let raised: unknown = null;
    try {
      for await (const chunk of stream) got += chunk.choices[0]?.delta.content ?? '';
    } catch (e) {
      raised = e;
    }
    expect(got).toBe('Hel');
    expect(raised).toBeInstanceOf(APIError);
    expect((raised as APIError).message).toContain('Overloaded');
    expect((raised as APIError).code).toBe('overloaded');
  });

  it('maps each error type of an error event, unknown ones as a server error', () => {
    const of = (type: string): unknown => T.stream(MODEL, false).event('error', { type: 'error', error: { type, message: 'm' } })[0];
    expect(of('rate_limit_error')).toEqual({ error: { message: 'm', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } });
    expect(of('api_error')).toEqual({ error: { message: 'm', type: 'server_error', param: null, code: null } });
    expect(of('brand_new_error')).toEqual({ error: { message: 'm', type: 'server_error', param: null, code: null } });
  });
});

/* ---------- errors ---------- */

describe('Anthropic translation: errors', () => {
  const body = (type: string, message: string): Json => ({ type: 'error', error: { type, message }, request_id: 'req_1' });

  it.each([
    [400, 'invalid_request_error', 400, 'invalid_request_error', null, BadRequestError],
    [401, 'authentication_error', 401, 'authentication_error', 'invalid_api_key', AuthenticationError],
    [403, 'permission_error', 403, 'permission_error', null, PermissionDeniedError],
    [404, 'not_found_error', 404, 'not_found_error', null, NotFoundError],
    [413, 'request_too_large', 413, 'invalid_request_error', 'request_too_large', APIError],
    [429, 'rate_limit_error', 429, 'rate_limit_error', 'rate_limit_exceeded', RateLimitError],
    [500, 'api_error', 500, 'server_error', null, InternalServerError],
    [529, 'overloaded_error', 503, 'server_error', 'overloaded', InternalServerError],
  ] as const)('gives Anthropic %i %s as OpenAI %i %s', (status, type, outStatus, outType, code, cls) => {
    const e = T.error(status, body(type, `msg ${type}`));
    expect(e).toEqual({ status: outStatus, body: { error: { message: `msg ${type}`, type: outType, param: null, code } } });
    const raised = APIError.generate(e.status, e.body, undefined, new Headers());
    expect(raised).toBeInstanceOf(cls);
    expect(raised.message).toContain(`msg ${type}`);
  });

  it('keeps the status of an answer that is not Anthropic JSON, or whose type belongs to another status', () => {
    expect(T.error(502, null)).toEqual({ status: 502, body: { error: { message: 'Anthropic answered 502', type: 'server_error', param: null, code: null } } });
    expect(T.error(529, 'Overloaded')).toEqual({ status: 503, body: { error: { message: 'Anthropic answered 529', type: 'server_error', param: null, code: 'overloaded' } } });
    expect(T.error(400, body('api_error', 'odd'))).toEqual({ status: 400, body: { error: { message: 'odd', type: 'invalid_request_error', param: null, code: null } } });
    expect(T.error(422, body('something_new', 'new'))).toEqual({ status: 422, body: { error: { message: 'new', type: 'invalid_request_error', param: null, code: null } } });
  });
});
