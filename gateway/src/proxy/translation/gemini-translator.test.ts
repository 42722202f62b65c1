import OpenAI from 'openai';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors.js';
import type { Json } from './chat-translator.js';
import { geminiTranslator as t } from './gemini-translator.js';

const TARGET = 'gemini-main';
const MODEL = 'gemini-2.5-pro';

type Parts = Json[];
interface Turn { role: string; parts: Parts }

/** The data fields of Gemini's Part, exactly one of which a part sets (thoughtSignature and thought ride beside). */
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'];
const GENERATION_FIELDS = new Set([
  'maxOutputTokens', 'temperature', 'topP', 'stopSequences', 'seed', 'presencePenalty', 'frequencyPenalty',
  'responseMimeType', 'responseJsonSchema', 'thinkingConfig',
]);
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;

/**
 * Checks a request body against Gemini's documented GenerateContentRequest: contents of `user` and `model` turns,
 * alternating (consecutive same-role turns merged), non-empty parts with one data field each, function responses
 * answering as many calls as the model turn before made, an object `response`, base64 inline data with a media type,
 * tools as functionDeclarations, toolConfig's modes, generationConfig's fields.
 */
function expectGeminiShape(body: Json): void {
  const contents = body['contents'] as Turn[];
  expect(Array.isArray(contents) && contents.length > 0).toBe(true);
  let previous: Turn | null = null;
  for (const turn of contents) {
    expect(Object.keys(turn).sort()).toEqual(['parts', 'role']);
    expect(['user', 'model']).toContain(turn.role);
    if (previous) expect(turn.role).not.toBe(previous.role);
    expect(turn.parts.length).toBeGreaterThan(0);
    for (const part of turn.parts) {
      const data = Object.keys(part).filter((k) => k !== 'thoughtSignature' && k !== 'thought');
      expect(data.length, JSON.stringify(part)).toBe(1);
      expect(PART_DATA).toContain(data[0]);
      if ('text' in part) expect(part['text']).not.toBe('');
      if ('inlineData' in part) {
        const blob = part['inlineData'] as Json;
        expect(Object.keys(blob).sort()).toEqual(['data', 'mimeType']);
        expect(blob['data']).toMatch(/^[A-Za-z0-9+/]+=*$/);
      }
      if ('fileData' in part) expect(Object.keys(part['fileData'] as Json).sort()).toEqual(['fileUri', 'mimeType']);
      if ('functionCall' in part) {
        expect(turn.role).toBe('model');
        const call = part['functionCall'] as Json;
        expect(call['name']).toMatch(FUNCTION_NAME);
        expect(typeof call['args'] === 'object' && !Array.isArray(call['args'])).toBe(true);
      }
      if ('functionResponse' in part) {
        expect(turn.role).toBe('user');
        const response = part['functionResponse'] as Json;
        expect(response['name']).toMatch(FUNCTION_NAME);
        expect(typeof response['response'] === 'object' && !Array.isArray(response['response'])).toBe(true);
      }
      if ('thoughtSignature' in part) expect(part['thoughtSignature']).toMatch(/^[A-Za-z0-9+/_=-]+$/);
    }
    const responses = turn.parts.filter((p) => 'functionResponse' in p).length;
    if (responses > 0) expect(responses).toBe(previous?.parts.filter((p) => 'functionCall' in p).length);
    previous = turn;
  }
  const system = body['systemInstruction'] as Json | undefined;
  if (system) for (const p of system['parts'] as Parts) expect(Object.keys(p)).toEqual(['text']);
  const tools = body['tools'] as Json[] | undefined;
  if (tools) {
    for (const tool of tools) {
      expect(Object.keys(tool)).toEqual(['functionDeclarations']);
      for (const d of tool['functionDeclarations'] as Json[]) {
        expect(d['name']).toMatch(FUNCTION_NAME);
        expect('parameters' in d && 'parametersJsonSchema' in d).toBe(false);
      }
    }
  }
  const config = (body['toolConfig'] as Json | undefined)?.['functionCallingConfig'] as Json | undefined;
  if (config) {
    expect(['AUTO', 'ANY', 'NONE']).toContain(config['mode']);
    if ('allowedFunctionNames' in config) expect(config['mode']).toBe('ANY');
  }
  const generation = body['generationConfig'] as Json | undefined;
  if (generation) {
    for (const k of Object.keys(generation)) expect(GENERATION_FIELDS.has(k), k).toBe(true);
    if ('responseJsonSchema' in generation) expect(generation['responseMimeType']).toBe('application/json');
  }
}

function request(body: Json): Json {
  const out = t.request({ model: 'gpt-4o', ...body }, MODEL, TARGET);
  expectGeminiShape(out.body);
  return out.body;
}

/** The 400 a request gets: a GatewayError('invalid_request') naming the field and the target. */
function refusal(body: Json): string {
  try {
    t.request({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...body }, MODEL, TARGET);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('invalid_request');
    expect((err as GatewayError).status).toBe(400);
    return (err as GatewayError).message;
  }
  throw new Error('request was not refused');
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const TOOLS = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { $schema: 'http://json-schema.org/draft-07/schema#', ...WEATHER }, strict: true } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { anyOf: [{ type: 'string' }, { type: 'null' }] } } } } },
];

describe('gemini translator: request', () => {
  it('puts system and developer messages in systemInstruction, user and assistant turns in contents, on the generateContent path', () => {
    const out = t.request(
      {
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
          { role: 'user', content: 'Hello', name: 'ana' },
          { role: 'assistant', content: 'Bonjour' },
          { role: 'user', content: [{ type: 'text', text: 'How are you?' }] },
        ],
      },
      MODEL,
      TARGET,
    );
    expect(out.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(out.stream).toBe(false);
    expect(out.headers).toEqual({});
    expect(out.body).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Hello' }] },
        { role: 'model', parts: [{ text: 'Bonjour' }] },
        { role: 'user', parts: [{ text: 'How are you?' }] },
      ],
    });
    expectGeminiShape(out.body);
  });

  it('asks for the SSE stream when the agent streams, the model name URL-encoded and a models/ prefix taken off', () => {
    const out = t.request({ messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }, 'models/tuned model', TARGET);
    expect(out.path).toBe('/v1beta/models/tuned%20model:streamGenerateContent?alt=sse');
    expect(out.stream).toBe(true);
  });

  it('merges consecutive turns of one role and leaves out empty text', () => {
    const body = request({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: [{ type: 'text', text: 'two' }, { type: 'text', text: '' }] },
        { role: 'assistant', content: 'a' },
        { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'three' },
      ],
    });
    expect(body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'one' }, { text: 'two' }] },
      { role: 'model', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'user', parts: [{ text: 'three' }] },
    ]);
  });

  it('sends a data URL image as inline data and an http(s) URL as file data Gemini fetches, audio and file data inline', () => {
    const body = request({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.PNG?size=large#top' } },
            { type: 'image_url', image_url: { url: 'https://example.com/photo' } },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
      ],
    });
    expect((body['contents'] as Turn[])[0]!.parts).toEqual([
      { text: 'What is in these?' },
      { inlineData: { mimeType: 'image/png', data: PNG } },
      { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.PNG?size=large#top' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photo' } },
      { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
    ]);
  });

  it('refuses content Gemini cannot take, naming the part and the target', () => {
    const user = (part: Json) => ({ messages: [{ role: 'user', content: [part] }] });
    expect(refusal(user({ type: 'file', file: { file_id: 'file-abc' } }))).toBe(
      "messages[0].content[0].file.file_data: target gemini-main (gemini) takes a file as a base64 data URL (an OpenAI file_id names OpenAI's storage)",
    );
    expect(refusal(user({ type: 'image_url', image_url: { url: 'data:image/svg+xml,<svg/>' } }))).toMatch(/^messages\[0\]\.content\[0\]\.image_url\.url: target gemini-main \(gemini\) takes a data URL only in base64$/);
    expect(refusal(user({ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }))).toMatch(/^messages\[0\]\.content\[0\]\.image_url\.url: .*http\(s\) URL$/);
    expect(refusal(user({ type: 'input_audio', input_audio: { data: 'AA==', format: 'flac' } }))).toMatch(/input_audio\.format: target gemini-main \(gemini\) takes wav or mp3 audio/);
    expect(refusal(user({ type: 'video_url', video_url: {} }))).toMatch(/^messages\[0\]\.content\[0\]\.type: target gemini-main \(gemini\) has no content part "video_url"/);
    expect(refusal({ messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] }, { role: 'user', content: 'hi' }] })).toMatch(
      /^messages\[0\]\.content\[0\]: target gemini-main \(gemini\) takes only text parts here$/,
    );
    expect(refusal({ messages: [{ role: 'function', name: 'f', content: 'x' }] })).toMatch(/^messages\[0\]\.role: .*has no role "function"/);
    expect(refusal({ messages: [] })).toBe('messages: target gemini-main (gemini) needs a non-empty array of messages');
    expect(refusal({ messages: [{ role: 'system', content: 'only instructions' }] })).toBe('messages: target gemini-main (gemini) needs a user or assistant message with content');
  });

  it('declares tools with their JSON Schema as parametersJsonSchema (root $schema dropped, the rest as the agent wrote it)', () => {
    const body = request({ messages: [{ role: 'user', content: 'weather?' }], tools: [...TOOLS, { type: 'function', function: { name: 'ping' } }] });
    expect(body['tools']).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather in a city', parametersJsonSchema: WEATHER },
          { name: 'get_time', parametersJsonSchema: TOOLS[1]!.function.parameters },
          { name: 'ping' },
        ],
      },
    ]);
    expect('$schema' in TOOLS[0]!.function.parameters).toBe(true);
    expect(body['toolConfig']).toBeUndefined();
  });

  it('maps tool_choice: auto → AUTO, none → NONE, required → ANY, a named function → ANY with allowedFunctionNames', () => {
    const choice = (tool_choice: unknown) => request({ messages: [{ role: 'user', content: 'hi' }], tools: TOOLS, tool_choice })['toolConfig'];
    expect(choice('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(choice('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(choice('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(choice({ type: 'function', function: { name: 'get_time' } })).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } });
    expect(request({ messages: [{ role: 'user', content: 'hi' }], tool_choice: 'none' })['toolConfig']).toBeUndefined();
    expect(refusal({ tool_choice: 'required' })).toBe('tool_choice: target gemini-main (gemini) needs tools to choose from');
    expect(refusal({ tools: TOOLS, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } } })).toBe(
      'tool_choice: target gemini-main (gemini) translates auto, none, required and a named function',
    );
    expect(refusal({ tools: [{ type: 'custom', custom: { name: 'grammar' } }] })).toBe('tools[0].type: target gemini-main (gemini) translates only function tools');
  });

  it('translates the generation fields into generationConfig', () => {
    const body = request({
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 50,
      max_completion_tokens: 200,
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0,
      reasoning_effort: 'low',
      response_format: { type: 'json_object' },
    });
    expect(body['generationConfig']).toEqual({
      maxOutputTokens: 200,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['END'],
      seed: 7,
      presencePenalty: 0.5,
      responseMimeType: 'application/json',
      thinkingConfig: { thinkingBudget: 1024 },
    });
    expect(request({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 50, stop: ['a', 'b'] })['generationConfig']).toEqual({ maxOutputTokens: 50, stopSequences: ['a', 'b'] });
    expect(request({ messages: [{ role: 'user', content: 'hi' }] })['generationConfig']).toBeUndefined();
  });

  it('asks for JSON matching a json_schema response_format through responseJsonSchema', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...WEATHER };
    const body = request({ messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_schema', json_schema: { name: 'w', strict: true, schema } } });
    expect(body['generationConfig']).toEqual({ responseMimeType: 'application/json', responseJsonSchema: WEATHER });
    expect(request({ messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'text' } })['generationConfig']).toBeUndefined();
  });

  it('refuses what Gemini cannot express, naming the field and the target, and lets no-op values and ignored fields through', () => {
    expect(refusal({ n: 2 })).toBe('n: target gemini-main (gemini) cannot return more than one choice');
    expect(refusal({ logprobs: true })).toBe('logprobs: target gemini-main (gemini) does not return log probabilities');
    expect(refusal({ top_logprobs: 3 })).toBe('top_logprobs: target gemini-main (gemini) does not return log probabilities');
    expect(refusal({ logit_bias: { '50256': -100 } })).toBe('logit_bias: target gemini-main (gemini) has no token biases');
    expect(refusal({ audio: { voice: 'alloy', format: 'mp3' } })).toBe('audio: target gemini-main (gemini) does not answer in audio');
    expect(refusal({ modalities: ['text', 'audio'] })).toBe('modalities: target gemini-main (gemini) answers only in text');
    expect(refusal({ parallel_tool_calls: false })).toBe('parallel_tool_calls: target gemini-main (gemini) cannot be held to one tool call per answer');
    expect(refusal({ functions: [{ name: 'f' }] })).toBe('functions: target gemini-main (gemini) has no equivalent');
    expect(refusal({ web_search_options: {} })).toBe('web_search_options: target gemini-main (gemini) has no equivalent');
    expect(refusal({ verbosity: 'low' })).toBe('verbosity: target gemini-main (gemini) has no equivalent');
    expect(refusal({ reasoning_effort: 'xhigh' })).toBe('reasoning_effort: target gemini-main (gemini) translates none, minimal, low, medium and high');
    expect(refusal({ temperature: 'hot' })).toBe('temperature: target gemini-main (gemini) needs a number');
    expect(refusal({ response_format: { type: 'grammar' } })).toBe('response_format.type: target gemini-main (gemini) translates text, json_object and json_schema');
    const body = request({
      messages: [{ role: 'user', content: 'hi' }],
      n: 1,
      logprobs: false,
      top_logprobs: null,
      logit_bias: {},
      modalities: ['text'],
      parallel_tool_calls: true,
      user: 'user-42',
      store: false,
      metadata: { team: 'a' },
      service_tier: 'auto',
      prompt_cache_key: 'k',
      safety_identifier: 's',
      prediction: { type: 'content', content: 'x' },
    });
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  });
});

/** A Gemini answer holding two parallel calls, the first signed, as Gemini 3 sends them. */
const SIGNATURE = 'CiQBcsjafA+5dD/mW0hLk2dW3J1WcGyOQn9j+E3u1bV2a0sdRw==';
const TWO_CALLS = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: 'Let me check.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE },
          { functionCall: { name: 'get_time', args: { zone: 'CET' } } },
        ],
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 12, thoughtsTokenCount: 30, totalTokenCount: 82 },
  modelVersion: 'gemini-2.5-pro',
  responseId: 'resp-1',
};

describe('gemini translator: a two-turn tool loop', () => {
  it('sends the calls back with their signatures and the results as function responses named by the calls, in the calls\' order', () => {
    const first = t.answer(structuredClone(TWO_CALLS), MODEL);
    const message = (first['choices'] as Json[])[0]!['message'] as Json;
    const calls = message['tool_calls'] as Json[];
    expect(calls).toHaveLength(2);
    const [weather, time] = calls as [Json, Json];
    // The results come back in the other order, as a concurrent agent may send them.
    const body = request({
      messages: [
        { role: 'system', content: 'Use tools.' },
        { role: 'user', content: 'Weather and time in Paris?' },
        message,
        { role: 'tool', tool_call_id: time['id'], content: '{"time":"14:02"}' },
        { role: 'tool', tool_call_id: weather['id'], content: [{ type: 'text', text: 'Sunny, ' }, { type: 'text', text: '21°C' }] },
      ],
      tools: TOOLS,
    });
    expect(body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me check.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE },
          { functionCall: { name: 'get_time', args: { zone: 'CET' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: 'Sunny, 21°C' } } },
          { functionResponse: { name: 'get_time', response: { output: '{"time":"14:02"}' } } },
        ],
      },
    ]);
  });

  it('signs the first call of a turn Gemini did not make with the documented stand-in, and keeps a following user message in the same turn', () => {
    const body = request({
      messages: [
        { role: 'user', content: 'Weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_Xa81kPq2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            { id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_Xa81kPq2', content: 'rain' },
        { role: 'tool', tool_call_id: 'toolu_01A', content: '' },
        { role: 'user', content: 'Thanks, and tomorrow?' },
      ],
    });
    expect(body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Oslo and Rome?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'skip_thought_signature_validator' },
          { functionCall: { name: 'get_weather', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: 'rain' } } },
          { functionResponse: { name: 'get_weather', response: { output: '' } } },
          { text: 'Thanks, and tomorrow?' },
        ],
      },
    ]);
  });

  it('refuses a tool result with no call before it and a call whose arguments are not a JSON object', () => {
    expect(refusal({ messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_nope', content: 'x' }] })).toBe(
      'messages[1].tool_call_id: target gemini-main (gemini) needs the assistant tool call with this id earlier in messages',
    );
    const call = (args: string) => ({
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] }],
    });
    expect(refusal(call('{"a":'))).toBe('messages[1].tool_calls[0].function.arguments: target gemini-main (gemini) needs a JSON object');
    expect(refusal(call('[1,2]'))).toBe('messages[1].tool_calls[0].function.arguments: target gemini-main (gemini) needs a JSON object');
  });
});

describe('gemini translator: whole answer', () => {
  it('is a chat.completion with the text, the model that answered, and usage counting thoughts as reasoning inside completion tokens', () => {
    const answer = t.answer(
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { text: 'Hello' }, { text: ' there' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 60, candidatesTokenCount: 5, thoughtsTokenCount: 20, totalTokenCount: 125 },
        modelVersion: 'gemini-2.5-pro-002',
        responseId: 'abc123',
      },
      MODEL,
    );
    expect(answer).toEqual({
      id: 'chatcmpl-abc123',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gemini-2.5-pro-002',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 25,
        total_tokens: 125,
        prompt_tokens_details: { cached_tokens: 60 },
        completion_tokens_details: { reasoning_tokens: 20 },
      },
    });
  });

  it('gives function calls as tool calls with JSON arguments and ids unique per answer, ending with tool_calls', () => {
    const one = t.answer(structuredClone(TWO_CALLS), MODEL);
    const two = t.answer(structuredClone(TWO_CALLS), MODEL);
    const choice = (one['choices'] as Json[])[0]!;
    expect(choice['finish_reason']).toBe('tool_calls');
    const message = choice['message'] as Json;
    expect(message['content']).toBe('Let me check.');
    const calls = message['tool_calls'] as Json[];
    expect(calls.map((c) => c['function'])).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris"}' },
      { name: 'get_time', arguments: '{"zone":"CET"}' },
    ]);
    expect(calls.every((c) => c['type'] === 'function' && /^call_[A-Za-z0-9_-]+$/.test(c['id'] as string))).toBe(true);
    const ids = [...calls, ...((two['choices'] as Json[])[0]!['message'] as Json)['tool_calls'] as Json[]].map((c) => c['id']);
    expect(new Set(ids).size).toBe(4);
    expect(one['usage']).toMatchObject({ prompt_tokens: 40, completion_tokens: 42, total_tokens: 82 });
    const onlyCall = t.answer({ candidates: [{ content: { parts: [{ functionCall: { name: 'ping' } }] }, finishReason: 'STOP' }] }, MODEL);
    const onlyMessage = (onlyCall['choices'] as Json[])[0]!['message'] as Json;
    expect(onlyMessage['content']).toBeNull();
    expect((onlyMessage['tool_calls'] as Json[])[0]!['function']).toEqual({ name: 'ping', arguments: '{}' });
    expect(onlyCall['model']).toBe(MODEL);
    expect(onlyCall['id']).toMatch(/^chatcmpl-[a-z0-9]+$/);
  });

  it('maps finish reasons: MAX_TOKENS → length, the filters → content_filter, malfunctions → stop', () => {
    const reason = (finishReason: string, parts: Json[] = [{ text: 'x' }]) =>
      ((t.answer({ candidates: [{ content: { parts }, finishReason }] }, MODEL)['choices'] as Json[])[0]!)['finish_reason'];
    expect(reason('MAX_TOKENS')).toBe('length');
    expect(reason('MAX_TOKENS', [{ functionCall: { name: 'f', args: {} } }])).toBe('length');
    for (const r of ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'LANGUAGE', 'IMAGE_SAFETY']) expect(reason(r)).toBe('content_filter');
    for (const r of ['MALFORMED_FUNCTION_CALL', 'OTHER', 'FINISH_REASON_UNSPECIFIED', 'SOMETHING_NEW']) expect(reason(r)).toBe('stop');
  });

  it('answers a prompt Gemini blocked as an empty answer ended by content_filter', () => {
    const answer = t.answer({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } }, MODEL);
    expect(answer['choices']).toEqual([{ index: 0, message: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: 'content_filter' }]);
    expect(answer['usage']).toMatchObject({ prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 });
  });
});

/** Chunks as the OpenAI SDK's own stream helper reads them, into the completion it assembles (or the error it raises). */
async function assemble(chunks: readonly Json[]): Promise<OpenAI.ChatCompletion> {
  const lines = new TextEncoder().encode(chunks.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(lines);
      controller.close();
    },
  });
  return ChatCompletionStream.fromReadableStream(body).finalChatCompletion();
}

function feed(events: Json[], includeUsage: boolean): Json[] {
  const s = t.stream(MODEL, includeUsage);
  const out: Json[] = [];
  for (const e of events) out.push(...s.event(null, e));
  out.push(...s.end());
  return out;
}

const delta = (chunk: Json) => (chunk['choices'] as Json[])[0]?.['delta'];
const finish = (chunk: Json) => (chunk['choices'] as Json[])[0]?.['finish_reason'];

describe('gemini translator: stream', () => {
  const textEvents = () => [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }], usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 1 }, modelVersion: 'gemini-2.5-flash', responseId: 'r1' },
    { candidates: [{ content: { role: 'model', parts: [{ text: 'lo ' }, { text: 'wor' }] }, index: 0 }], usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 2 }, modelVersion: 'gemini-2.5-flash', responseId: 'r1' },
    {
      candidates: [{ content: { role: 'model', parts: [{ text: 'ld' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 3, thoughtsTokenCount: 4, totalTokenCount: 15 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'r1',
    },
  ];

  it('streams a role delta first, content deltas, a finish chunk, and the last usage as a choices-less chunk when asked', async () => {
    const chunks = feed(textEvents(), true);
    expect(chunks.map((c) => [delta(c) ?? null, finish(c) ?? null])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'Hel' }, null],
      [{ content: 'lo wor' }, null],
      [{ content: 'ld' }, null],
      [{}, 'stop'],
      [null, null],
    ]);
    for (const c of chunks) expect(c).toMatchObject({ id: 'chatcmpl-r1', object: 'chat.completion.chunk', model: 'gemini-2.5-flash', created: chunks[0]!['created'] });
    expect(chunks[5]).toMatchObject({ choices: [], usage: { prompt_tokens: 8, completion_tokens: 7, total_tokens: 15, completion_tokens_details: { reasoning_tokens: 4 } } });
    const completion = await assemble(chunks);
    expect(completion.choices[0]!.message.content).toBe('Hello world');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(feed(textEvents(), false).some((c) => 'usage' in c)).toBe(false);
  });

  it('streams two parallel function calls as whole tool-call deltas with index, id, name and arguments, ending with tool_calls', async () => {
    const events: Json[] = [
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Checking.' }] } }], responseId: 'r2' },
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE },
                { functionCall: { name: 'get_time', args: { zone: 'CET' } } },
              ],
            },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 10, totalTokenCount: 40 },
        responseId: 'r2',
      },
      { usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 11, totalTokenCount: 41 }, responseId: 'r2' },
    ];
    const chunks = feed(events, true);
    const toolDeltas = chunks.flatMap((c) => ((delta(c) as Json | undefined)?.['tool_calls'] as Json[] | undefined) ?? []);
    expect(toolDeltas).toEqual([
      { index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { index: 1, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_time', arguments: '{"zone":"CET"}' } },
    ]);
    expect(chunks.map(finish).filter((f) => f != null)).toEqual(['tool_calls']);
    expect(chunks[chunks.length - 1]).toMatchObject({ choices: [], usage: { completion_tokens: 11, total_tokens: 41 } });
    const completion = await assemble(chunks);
    const message = completion.choices[0]!.message;
    expect(message.content).toBe('Checking.');
    expect(message.tool_calls?.map((c) => (c.type === 'function' ? [c.function.name, JSON.parse(c.function.arguments)] : null))).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_time', { zone: 'CET' }],
    ]);
    // The streamed calls go back as the whole answer's do: the signature restored on the first.
    const body = request({
      messages: [
        { role: 'user', content: 'Weather and time?' },
        message as unknown as Json,
        ...(message.tool_calls ?? []).map((c) => ({ role: 'tool', tool_call_id: c.id, content: 'ok' })),
      ],
    });
    expect((body['contents'] as Turn[])[1]!.parts).toEqual([
      { text: 'Checking.' },
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE },
      { functionCall: { name: 'get_time', args: { zone: 'CET' } } },
    ]);
  });

  it('turns an error event into OpenAI\'s in-stream error, which the SDK raises', async () => {
    const s = t.stream(MODEL, false);
    const first = s.event(null, textEvents()[0]!);
    const error = s.event(null, { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
    expect(error).toEqual([{ error: { message: 'The model is overloaded. Please try again later.', type: 'server_error', param: null, code: 'unavailable' } }]);
    await expect(assemble([...first, ...error])).rejects.toThrow(/overloaded/);
  });

  it('ends a stream whose prompt Gemini blocked with a content_filter finish', async () => {
    const chunks = feed([{ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 5 } }], false);
    expect(chunks.map((c) => [delta(c), finish(c)])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{}, 'content_filter'],
    ]);
    expect((await assemble(chunks)).choices[0]!.finish_reason).toBe('content_filter');
  });

  it('maps a stream cut by MAX_TOKENS and by SAFETY', () => {
    const last = (finishReason: string) => feed([{ candidates: [{ content: { parts: [{ text: 'a' }] }, finishReason }] }], false).map(finish).filter((f) => f != null);
    expect(last('MAX_TOKENS')).toEqual(['length']);
    expect(last('SAFETY')).toEqual(['content_filter']);
  });
});

describe('gemini translator: errors', () => {
  const google = (code: number, status: string, message = `${status} happened`, details?: Json[]) => ({ error: { code, message, status, ...(details ? { details } : {}) } });
  const KEY_INVALID = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }];
  const cases: [number, unknown, number, string, string | null, abstract new (...args: never[]) => Error][] = [
    [400, google(400, 'INVALID_ARGUMENT'), 400, 'invalid_request_error', 'invalid_argument', OpenAI.BadRequestError],
    [400, google(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', KEY_INVALID), 401, 'authentication_error', 'invalid_api_key', OpenAI.AuthenticationError],
    [401, google(401, 'UNAUTHENTICATED'), 401, 'authentication_error', 'invalid_api_key', OpenAI.AuthenticationError],
    [403, google(403, 'PERMISSION_DENIED'), 403, 'permission_error', 'permission_denied', OpenAI.PermissionDeniedError],
    [404, google(404, 'NOT_FOUND', 'models/gemini-9 is not found'), 404, 'invalid_request_error', 'not_found', OpenAI.NotFoundError],
    [429, google(429, 'RESOURCE_EXHAUSTED'), 429, 'rate_limit_error', 'rate_limit_exceeded', OpenAI.RateLimitError],
    [500, google(500, 'INTERNAL'), 500, 'server_error', 'internal', OpenAI.InternalServerError],
    [503, google(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'), 503, 'server_error', 'unavailable', OpenAI.InternalServerError],
    [504, google(504, 'DEADLINE_EXCEEDED'), 504, 'server_error', 'deadline_exceeded', OpenAI.InternalServerError],
  ];

  it.each(cases)('%i %j → %i, the SDK class of that status', (status, body, want, type, code, Class) => {
    const out = t.error(status, body);
    expect(out.status).toBe(want);
    const message = ((body as Json)['error'] as Json)['message'];
    expect(out.body).toEqual({ error: { message, type, param: null, code } });
    expect(OpenAI.APIError.generate(out.status, out.body, undefined, new Headers())).toBeInstanceOf(Class);
  });

  it('reads the error an array wraps, takes the status from Google\'s when the HTTP one is not an error, and names the status of a body it cannot read', () => {
    expect(t.error(429, [google(429, 'RESOURCE_EXHAUSTED', 'quota')]).body.error.message).toBe('quota');
    expect(t.error(200, google(404, 'NOT_FOUND')).status).toBe(404);
    expect(t.error(200, { nothing: true }).status).toBe(502);
    expect(t.error(502, null)).toEqual({ status: 502, body: { error: { message: 'Gemini answered 502', type: 'server_error', param: null, code: null } } });
  });
});
