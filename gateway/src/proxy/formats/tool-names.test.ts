import { describe, expect, it } from 'vitest';
import { ANTHROPIC_COUNT_TOKENS, ANTHROPIC_MESSAGES } from './anthropic-messages.js';
import { GEMINI, GEMINI_NO_TEXT } from './gemini.js';
import { OPENAI_CHAT, OPENAI_COMPLETIONS, OPENAI_EMBEDDINGS } from './openai-answers.js';
import { OPENAI_RESPONSE_DELETED, OPENAI_RESPONSE_INPUT_ITEMS, OPENAI_RESPONSES } from './openai-responses.js';

// Where each wire format names the tools an answer calls, whole and streamed, as the providers send them.

describe('AnswerFormat.toolNames', () => {
  it('OpenAI chat: each message tool call (and the legacy function_call); in a stream, the delta that opens a call', () => {
    const whole = { choices: [{ index: 0, message: { content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'read', arguments: '{}' } }, { id: 'c1', type: 'function', function: { name: 'drop', arguments: '{}' } }] } }, { index: 1, message: { function_call: { name: 'old', arguments: '{}' } } }] };
    expect(OPENAI_CHAT.toolNames(whole)).toEqual(['read', 'drop', 'old']);
    expect(OPENAI_CHAT.toolNames({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { name: 'drop', arguments: '' } }] } }] })).toEqual(['drop']);
    // The argument deltas that follow name nothing; nor does text.
    expect(OPENAI_CHAT.toolNames({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] } }] })).toEqual([]);
    expect(OPENAI_CHAT.toolNames({ choices: [{ index: 0, message: { content: 'call drop_table' } }] })).toEqual([]);
    expect(OPENAI_CHAT.toolNames({ choices: [null, 5] })).toEqual([]);
  });

  it('OpenAI Responses: function_call and custom_tool_call items, whole; in a stream, output_item.added and what repeats it', () => {
    const fc = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'drop', arguments: '{}' };
    const whole = { id: 'resp_1', object: 'response', output: [{ type: 'message', content: [{ type: 'output_text', text: 'name: read' }] }, fc, { type: 'custom_tool_call', name: 'shell', input: 'ls' }, { type: 'web_search_call', id: 'ws' }] };
    expect(OPENAI_RESPONSES.toolNames(whole)).toEqual(['drop', 'shell']);
    expect(OPENAI_RESPONSES.toolNames({ type: 'response.output_item.added', output_index: 1, item: { ...fc, arguments: '' } })).toEqual(['drop']);
    expect(OPENAI_RESPONSES.toolNames({ type: 'response.output_item.done', output_index: 1, item: fc })).toEqual(['drop']);
    expect(OPENAI_RESPONSES.toolNames({ type: 'response.completed', response: whole })).toEqual(['drop', 'shell']);
    expect(OPENAI_RESPONSES.toolNames({ type: 'response.function_call_arguments.delta', output_index: 1, delta: '{"name":"x"}' })).toEqual([]);
    expect(OPENAI_RESPONSES.toolNames({ type: 'response.output_item.added', item: { type: 'message', name: 'not a tool' } })).toEqual([]);
  });

  it('Anthropic: tool_use blocks, whole; in a stream, the content_block_start that opens one', () => {
    const whole = { type: 'message', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 't1', name: 'drop', input: {} }, { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} }] };
    expect(ANTHROPIC_MESSAGES.toolNames(whole)).toEqual(['drop']);
    expect(ANTHROPIC_MESSAGES.toolNames({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't1', name: 'drop', input: {} } })).toEqual(['drop']);
    expect(ANTHROPIC_MESSAGES.toolNames({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })).toEqual([]);
    expect(ANTHROPIC_MESSAGES.toolNames({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"name":' } })).toEqual([]);
  });

  it('Gemini: functionCall parts of every candidate, whole or in a stream chunk (the same shape)', () => {
    const chunk = { candidates: [{ index: 0, content: { role: 'model', parts: [{ text: 'x' }, { functionCall: { name: 'drop', args: {} } }] } }, { index: 1, content: { parts: [{ functionCall: { name: 'read' } }] } }] };
    expect(GEMINI.toolNames(chunk)).toEqual(['drop', 'read']);
    expect(GEMINI.toolNames({ candidates: [{ content: { parts: [{ text: 'functionCall' }] } }, null] })).toEqual([]);
  });

  it('formats with no tools name none', () => {
    const any = { choices: [{ message: { tool_calls: [{ function: { name: 'drop' } }] } }], content: [{ type: 'tool_use', name: 'drop' }], output: [{ type: 'function_call', name: 'drop' }], data: [{ type: 'function_call', name: 'drop' }] };
    for (const f of [OPENAI_COMPLETIONS, OPENAI_EMBEDDINGS, ANTHROPIC_COUNT_TOKENS, GEMINI_NO_TEXT, OPENAI_RESPONSE_INPUT_ITEMS, OPENAI_RESPONSE_DELETED]) expect(f.toolNames(any)).toEqual([]);
  });
});
