import type { Json, StreamTranslation } from './chat-translator.js';
import { blockedReason, completionId, finishReason, firstCandidate, partsOf, responseModel, toolCall, usageOf } from './gemini-answer.js';
import { geminiError } from './gemini-errors.js';
import { idNonce } from './gemini-ids.js';

const NONE: readonly Json[] = Object.freeze([]);

/**
 * streamGenerateContent (`alt=sse`) as `chat.completion.chunk`s. Each of Gemini's events is a whole response holding
 * the next parts of the first candidate: the first event opens with the role delta, text parts become content deltas,
 * and a function call, which Gemini sends whole in one event, becomes one tool-call delta with its index, id, name and
 * all its arguments. The event carrying `finishReason` makes the finish chunk; `usageMetadata` holds running totals,
 * the last of which becomes the usage chunk (`choices: []`) at the end when the agent asked for it. An `error` event
 * becomes OpenAI's in-stream error object (`{error: {...}}`), which the OpenAI SDKs raise as an APIError.
 */
class GeminiStream implements StreamTranslation {
  private readonly nonce = idNonce();
  private readonly created = Math.floor(Date.now() / 1000);
  private id = '';
  private answering = '';
  private started = false;
  private finished = false;
  private calls = 0;
  private usage: Json | null = null;

  constructor(private readonly model: string, private readonly includeUsage: boolean) {}

  private chunk(delta: Json, finish: string | null): Json {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.answering,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
  }

  event(_name: string | null, data: Json): readonly Json[] {
    const error = data['error'];
    if (error !== null && typeof error === 'object') {
      const code = (error as Json)['code'];
      return [geminiError(typeof code === 'number' ? code : 500, data).body];
    }
    if (this.id === '') {
      this.id = completionId(data, this.nonce);
      this.answering = responseModel(data, this.model);
    }
    const usage = usageOf(data['usageMetadata']);
    if (usage) this.usage = usage;
    if (this.finished) return NONE;
    const candidate = firstCandidate(data);
    const blocked = candidate === null && blockedReason(data) === 'content_filter';
    if (candidate === null && !blocked) return NONE;
    const out: Json[] = [];
    if (!this.started) {
      this.started = true;
      out.push(this.chunk({ role: 'assistant', content: '' }, null));
    }
    let text = '';
    for (const part of partsOf(candidate)) {
      if (part === null || typeof part !== 'object') continue;
      const p = part as Json;
      if (typeof p['text'] === 'string') {
        if (p['thought'] !== true) text += p['text'];
      } else if (p['functionCall'] !== null && typeof p['functionCall'] === 'object') {
        if (text !== '') out.push(this.chunk({ content: text }, null));
        text = '';
        const index = this.calls++;
        const call = toolCall(p['functionCall'] as Json, p['thoughtSignature'], this.nonce, index);
        out.push(this.chunk({ tool_calls: [{ index, ...call }] }, null));
      }
    }
    if (text !== '') out.push(this.chunk({ content: text }, null));
    const reason = candidate ? candidate['finishReason'] : null;
    if (blocked || (reason !== undefined && reason !== null)) {
      this.finished = true;
      out.push(this.chunk({}, blocked ? 'content_filter' : finishReason(reason, this.calls > 0)));
    }
    return out;
  }

  end(): readonly Json[] {
    if (!this.includeUsage || !this.usage) return NONE;
    return [{ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.answering, choices: [], usage: this.usage }];
  }
}

export function geminiStream(model: string, includeUsage: boolean): StreamTranslation {
  return new GeminiStream(model, includeUsage);
}
