import { createHash, type Hash } from 'node:crypto';
import type { PiiStreamRedactor } from '../../pii/index.js';
import type { Triggered } from '../../policy/evaluation.js';
import type { ProxyContext, Usage } from '../proxy-context.js';
import { ANSWER_TEXT_CAP } from '../stages/response-stages.js';
import { SseReader, encodeSse, type SseEvent } from './sse-reader.js';

/** Output content filters see each new piece of text with this much of what came before (patterns spanning chunks). */
const FILTER_OVERLAP = 512;

export interface StreamHooks {
  /** Usage reported by the stream (its last chunk, when asked for). */
  onUsage(c: ProxyContext, usage: Partial<Usage>): void;
  /** Output triggers for a window of new text; returns true when the stream must be cut (a blocking verdict). */
  onOutputTriggers(c: ProxyContext, triggered: Triggered[]): boolean;
}

interface ChoiceState {
  redactor: PiiStreamRedactor | null;
  ended: boolean;
}

/**
 * Governs one streamed answer, event by event: each choice's text deltas go through that choice's stream redactor
 * (which holds back only a tail that could still be an entity, so one split across chunks is still caught), output
 * filters run over each new window of text, the usage chunk we asked for is counted and dropped if the client did not
 * ask, and the SHA-256 of every byte relayed is kept for the ledger. Nothing unredacted is ever emitted.
 */
export class StreamGovernor {
  readonly #reader = new SseReader();
  readonly #hash: Hash = createHash('sha256');
  readonly #choices = new Map<number, ChoiceState>();
  readonly #textField: 'content' | 'text';
  #template: Record<string, unknown> | null = null;
  #answer = '';
  #window = '';
  #blocked = false;
  #done = false;

  constructor(
    private readonly c: ProxyContext,
    private readonly hooks: StreamHooks,
  ) {
    this.#textField = c.endpoint.kind === 'completions' ? 'text' : 'content';
  }

  get blocked(): boolean {
    return this.#blocked;
  }

  /** Text to relay for this upstream chunk ('' when everything is held back or dropped). */
  push(chunk: Uint8Array): string {
    if (this.#blocked) return '';
    return this.#emit(this.#reader.push(chunk));
  }

  /** Flushes held text at the end of the upstream stream. */
  end(): string {
    if (this.#blocked) return '';
    let out = this.#emit(this.#reader.end());
    if (!this.#done) out += this.#flushAll();
    return out;
  }

  /** The answer's text as relayed (bounded), for output checks at the end and the ledger. */
  get answerText(): string {
    return this.#answer;
  }

  get outputHash(): string {
    return this.#hash.copy().digest('hex');
  }

  /** An SSE event carrying our error envelope: the status line is long gone, so this is how a cut stream says why. */
  errorEvent(body: unknown): string {
    return this.#write(encodeSse({ data: JSON.stringify(body), other: [] }));
  }

  #emit(events: SseEvent[]): string {
    let out = '';
    for (const ev of events) {
      if (this.#blocked) break;
      if (ev.data === '[DONE]') {
        out += this.#flushAll();
        this.#done = true;
        out += this.#write(encodeSse(ev));
        continue;
      }
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(ev.data) as Record<string, unknown>;
      } catch {
        out += this.#write(encodeSse(ev));
        continue;
      }
      out += this.#event(ev, obj);
    }
    return out;
  }

  #event(ev: SseEvent, obj: Record<string, unknown>): string {
    const choices = Array.isArray(obj['choices']) ? (obj['choices'] as Record<string, unknown>[]) : [];
    if (obj['usage'] && typeof obj['usage'] === 'object') {
      this.hooks.onUsage(this.c, obj['usage'] as Partial<Usage>);
      if (choices.length === 0 && !this.c.clientWantsStreamUsage) return '';
    }
    if (!this.#template && choices.length > 0) this.#template = { id: obj['id'], object: obj['object'], created: obj['created'], model: obj['model'] };
    let fresh = '';
    let changed = false;
    for (const choice of choices) {
      const index = typeof choice['index'] === 'number' ? choice['index'] : 0;
      const holder = this.#textField === 'content' ? (choice['delta'] as Record<string, unknown> | undefined) : choice;
      const state = this.#choice(index);
      if (holder && typeof holder[this.#textField] === 'string') {
        const raw = holder[this.#textField] as string;
        let safe = state.redactor ? state.redactor.push(raw) : raw;
        if (choice['finish_reason'] != null && state.redactor && !state.ended) {
          safe += state.redactor.end();
          state.ended = true;
        }
        if (safe !== raw) {
          holder[this.#textField] = safe;
          changed = true;
        }
        fresh += safe;
      } else if (choice['finish_reason'] != null && state.redactor && !state.ended) {
        // The answer ends in this event without text: put the held tail here.
        const tail = state.redactor.end();
        state.ended = true;
        if (tail) {
          const delta = (choice['delta'] ??= {}) as Record<string, unknown>;
          if (this.#textField === 'content') delta['content'] = tail;
          else choice['text'] = tail;
          changed = true;
          fresh += tail;
        }
      }
    }
    if (fresh && this.#checkOutput(fresh)) return '';
    return this.#write(encodeSse(changed ? { data: JSON.stringify(obj), other: ev.other } : ev));
  }

  #choice(index: number): ChoiceState {
    let s = this.#choices.get(index);
    if (!s) {
      const r = this.c.policySet?.outputRedactor;
      s = { redactor: r ? r.createStream() : null, ended: false };
      this.#choices.set(index, s);
    }
    return s;
  }

  /** Runs output filters over the new text with some overlap; true when the stream was cut. */
  #checkOutput(fresh: string): boolean {
    if (this.#answer.length < ANSWER_TEXT_CAP) this.#answer += fresh;
    const set = this.c.policySet;
    if (!set || !set.hasOutputFilters) return false;
    const window = this.#window + fresh;
    this.#window = window.slice(-FILTER_OVERLAP);
    const ev = set.evaluateOutput(window);
    if (ev.triggered.length === 0) return false;
    if (this.hooks.onOutputTriggers(this.c, ev.triggered)) {
      this.#blocked = true;
      return true;
    }
    return false;
  }

  /** Emits, per choice, whatever its redactor still holds (a stream that ended without finish_reason). */
  #flushAll(): string {
    let out = '';
    for (const [index, state] of this.#choices) {
      if (!state.redactor || state.ended) continue;
      const tail = state.redactor.end();
      state.ended = true;
      if (!tail || this.#checkOutput(tail)) continue;
      const choice: Record<string, unknown> = { index, finish_reason: null };
      if (this.#textField === 'content') choice['delta'] = { content: tail };
      else choice['text'] = tail;
      out += this.#write(encodeSse({ data: JSON.stringify({ ...this.#template, choices: [choice] }), other: [] }));
    }
    return out;
  }

  #write(s: string): string {
    this.#hash.update(s);
    return s;
  }
}
