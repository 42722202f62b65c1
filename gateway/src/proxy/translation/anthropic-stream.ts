import { answeringModel, finishReason, nowSeconds, openaiUsage, readUsage, type TokenCounts } from './anthropic-answer.js';
import { anthropicStreamError } from './anthropic-error.js';
import type { Json, StreamTranslation } from './chat-translator.js';

const NONE: readonly Json[] = [];

/**
 * One Messages API stream as `chat.completion.chunk`s. `message_start` gives the id, the model and the input tokens
 * and makes the role chunk; text deltas become content deltas; a `tool_use` block's start becomes a tool call's first
 * delta (its index among the answer's tool calls, id, name, empty arguments) and its `input_json_delta`s the argument
 * pieces; `message_delta` gives the stop reason (the finish chunk) and the output tokens; `message_stop` sends the
 * usage chunk when asked for. Thinking, signature and citation deltas and `ping` make nothing. An `error` event (the
 * provider failing after the stream began) becomes OpenAI's in-stream error object (`{error: {message, type, param,
 * code}}`, mapped as a whole answer's error is), which the OpenAI SDKs raise as an APIError; nothing follows it, not
 * even the usage chunk.
 */
export class AnthropicStream implements StreamTranslation {
  private id = '';
  private model: string;
  private readonly created = nowSeconds();
  private started = false;
  private usageSent = false;
  private failed = false;
  /** Content block index → its tool call's index among the answer's tool calls (undefined: not a tool_use block). */
  private readonly toolAt: number[] = [];
  private tools = 0;
  private readonly counts: TokenCounts = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, thinking: null };

  constructor(
    model: string,
    private readonly includeUsage: boolean,
  ) {
    this.model = model;
  }

  event(name: string | null, data: Json): readonly Json[] {
    if (this.failed) return NONE;
    const type = typeof data['type'] === 'string' ? data['type'] : name;
    switch (type) {
      case 'message_start':
        return this.start(data['message']);
      case 'content_block_start':
        return this.blockStart(data);
      case 'content_block_delta':
        return this.blockDelta(data);
      case 'message_delta':
        return this.messageDelta(data);
      case 'message_stop':
        return this.usageChunk();
      case 'error':
        this.failed = true;
        return [anthropicStreamError(data).body];
      default:
        // ping, content_block_stop, and event types added after this was written.
        return NONE;
    }
  }

  end(): readonly Json[] {
    return this.usageChunk();
  }

  private start(message: unknown): readonly Json[] {
    if (message !== null && typeof message === 'object') {
      const m = message as Json;
      if (typeof m['id'] === 'string') this.id = m['id'];
      this.model = answeringModel(m['model'], this.model);
      // message_start counts an output token or so as a placeholder: the real count comes in message_delta.
      readUsage(m['usage'], this.counts, false);
    }
    if (this.started) return NONE;
    this.started = true;
    return [this.chunk({ role: 'assistant', content: '' }, null)];
  }

  /** `c`, after the role chunk when a content event comes with no message_start before it. */
  private emit(c: Json): Json[] {
    if (this.started) return [c];
    this.started = true;
    return [this.chunk({ role: 'assistant', content: '' }, null), c];
  }

  private blockStart(data: Json): readonly Json[] {
    const block = data['content_block'] as Json | null | undefined;
    const index = data['index'];
    if (!block || typeof block !== 'object' || typeof index !== 'number') return NONE;
    if (block['type'] === 'tool_use') {
      const call = this.tools++;
      this.toolAt[index] = call;
      const input = block['input'];
      // Anthropic starts a call with an empty input and streams it; a start that carries it whole sends it here.
      const args = input !== null && typeof input === 'object' && Object.keys(input).length > 0 ? JSON.stringify(input) : '';
      const delta = { tool_calls: [{ index: call, id: block['id'], type: 'function', function: { name: block['name'], arguments: args } }] };
      return this.emit(this.chunk(delta, null));
    }
    if (block['type'] === 'text' && typeof block['text'] === 'string' && block['text'] !== '') return this.emit(this.chunk({ content: block['text'] }, null));
    return NONE;
  }

  private blockDelta(data: Json): readonly Json[] {
    const delta = data['delta'] as Json | null | undefined;
    if (!delta || typeof delta !== 'object') return NONE;
    if (delta['type'] === 'text_delta') {
      const text = delta['text'];
      if (typeof text !== 'string' || text === '') return NONE;
      return this.emit(this.chunk({ content: text }, null));
    }
    if (delta['type'] === 'input_json_delta') {
      const piece = delta['partial_json'];
      const call = typeof data['index'] === 'number' ? this.toolAt[data['index']] : undefined;
      if (call === undefined || typeof piece !== 'string' || piece === '') return NONE;
      return [this.chunk({ tool_calls: [{ index: call, function: { arguments: piece } }] }, null)];
    }
    return NONE;
  }

  private messageDelta(data: Json): readonly Json[] {
    readUsage(data['usage'], this.counts, true);
    const delta = data['delta'] as Json | null | undefined;
    const stop = delta && typeof delta === 'object' ? delta['stop_reason'] : undefined;
    if (typeof stop !== 'string') return NONE;
    return this.emit(this.chunk({}, finishReason(stop)));
  }

  /** The usage chunk, once, when the agent asked for it (`stream_options.include_usage`). */
  private usageChunk(): readonly Json[] {
    if (!this.includeUsage || this.usageSent || !this.started || this.failed) return NONE;
    this.usageSent = true;
    return [{ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage: openaiUsage(this.counts) }];
  }

  private chunk(delta: Json, finish: string | null): Json {
    const c: Json = { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
    // With include_usage, OpenAI's chunks carry `usage: null` until the usage chunk.
    if (this.includeUsage) c['usage'] = null;
    return c;
  }
}
