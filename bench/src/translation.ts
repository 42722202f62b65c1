/**
 * What translating an OpenAI chat completion to another provider costs (`npm run bench:translation`), in-process, per
 * operation, as the router and the translated answer do it (docs/translation.md): the provider's bytes parsed, the
 * translator's mapping, OpenAI's bytes written. The untranslated call does none of this (its answer is parsed once by
 * the answer stages either way), so each row is what translation adds. Targets: < 20 µs per whole answer of ~1 KB
 * and per stream event.
 */
import { anthropicTranslator, geminiTranslator, type ChatTranslator } from '@aduana/gateway/translation';
import { microBench, table, fmt } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';

const TEXT = 'The quarterly figures for the northeast region came in above the forecast, driven by the new retail accounts. '.repeat(8).slice(0, 880);

/** A ~1 KB OpenAI chat completions request: a system prompt, two turns, one tool. */
const REQUEST = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'You are a careful analyst. Answer briefly and cite the figures you use.' },
    { role: 'user', content: `Summarise this report: ${TEXT.slice(0, 500)}` },
    { role: 'assistant', content: 'Which region should I focus on?' },
    { role: 'user', content: 'The northeast, and compare it with last quarter.' },
  ],
  tools: [{ type: 'function', function: { name: 'lookup', description: 'figures of a region and quarter', parameters: { type: 'object', properties: { region: { type: 'string' }, quarter: { type: 'string' } }, required: ['region'] } } }],
  temperature: 0.3,
  max_tokens: 512,
};

/** Each provider's ~1 KB whole answer and one stream event, as its API sends them. */
const SAMPLES: Record<'anthropic' | 'gemini', { translator: ChatTranslator; model: string; answer: string; event: { name: string | null; data: string } }> = {
  anthropic: {
    translator: anthropicTranslator,
    model: 'claude-sonnet-4-5',
    answer: JSON.stringify({ id: 'msg_01XFDUDYJgAACzvnptvVoYEL', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: TEXT }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 412, output_tokens: 187 } }),
    event: { name: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'came in above the forecast, ' } }) },
  },
  gemini: {
    translator: geminiTranslator,
    model: 'gemini-2.5-pro',
    answer: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: TEXT }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 412, candidatesTokenCount: 187, totalTokenCount: 599 }, modelVersion: 'gemini-2.5-pro' }),
    event: { name: null, data: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'came in above the forecast, ' }] }, index: 0 }], usageMetadata: { promptTokenCount: 412, candidatesTokenCount: 9, totalTokenCount: 421 }, modelVersion: 'gemini-2.5-pro' }) },
  },
};

const tasks: Record<string, () => unknown> = {};
for (const [provider, s] of Object.entries(SAMPLES)) {
  tasks[`${provider}: request (~1 KB), mapped and written`] = () => JSON.stringify(s.translator.request(REQUEST, s.model, 'bench-target').body);
  tasks[`${provider}: whole answer (~1 KB), read, mapped and written`] = () => JSON.stringify(s.translator.answer(JSON.parse(s.answer) as Record<string, unknown>, s.model));
  // A stream's state lives for the whole stream: one per task, fed the same text event again and again.
  const stream = s.translator.stream(s.model, false);
  stream.event(provider === 'anthropic' ? 'message_start' : null, provider === 'anthropic' ? { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: s.model, content: [], usage: { input_tokens: 412, output_tokens: 1 } } } : (JSON.parse(s.event.data) as Record<string, unknown>));
  if (provider === 'anthropic') stream.event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  tasks[`${provider}: stream event, read, mapped and written`] = () => {
    let out = '';
    for (const c of stream.event(s.event.name, JSON.parse(s.event.data) as Record<string, unknown>)) out += `data: ${JSON.stringify(c)}\n\n`;
    return out;
  };
}

const results = await microBench(tasks);
console.log(`\nTranslation, per operation (Node ${process.version}; target < 20 µs per whole answer of ~1 KB and per stream event)`);
console.log(table(['operation', 'mean µs', 'p50 µs', 'p99 µs', 'ops/s'], results.map((r) => [r.name, fmt(r.meanUs, 2), fmt(r.p50Us, 2), fmt(r.p99Us, 2), r.opsPerSec])));
console.log(`\nresults: ${writeResults('translation', { results })}`);
