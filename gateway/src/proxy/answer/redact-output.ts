import type { PiiStreamRedactor } from '../../policy/pii/index.js';
import type { ProxyContext } from '../proxy-context.js';
import { AnswerPiece } from './answer-piece.js';
import type { ResponseStage } from './response-stage.js';
import { tallyEntities, type EntityTally } from '../../policy/pii/entity-tally.js';

/** Cap on answer text kept for output checks and the ledger (an answer is relayed whole regardless). */
export const ANSWER_TEXT_CAP = 256 * 1024;

/**
 * One channel of a streamed answer (a choice, a content block): its redactor, which holds back a tail that could still
 * be an entity, and its first delta event, the shape of an event that carries held text on its own.
 */
export interface OutputChannel {
  redactor: PiiStreamRedactor;
  ended: boolean;
  like: Record<string, unknown>;
  /** What the client was sent on it, kept only for a format whose events repeat a streamed text (repeatsStreamedText). */
  sent: string;
}

/**
 * PII in the answer is rewritten before the client sees it (pii policies targeting output). A whole answer is redacted
 * string by string; a stream channel by channel, each through a stream redactor whose hold-back window catches an
 * entity split across events; what a channel still holds is put in the event that ends it, or, when the stream ends
 * without one, in an event of its own. A whole text an event repeats after its deltas (Responses' `*.done` events) is
 * replaced by what the client was sent on that channel. Leaves each piece's text, as the client reads it, for the
 * output checks.
 */
export function redactOutputStage(): ResponseStage {
  return {
    name: 'redact-output',
    onPiece(c, piece) {
      if (piece.whole) redactWhole(c, piece);
      else redactEvent(c, piece);
    },
    onStreamEnd(c) {
      const channels = c.outputChannels;
      if (channels === null) return null;
      const added: AnswerPiece[] = [];
      for (const [channel, state] of channels) {
        if (state.ended) continue;
        state.ended = true;
        const tail = state.redactor.end();
        if (!tail) continue;
        if (c.endpoint.format.repeatsStreamedText === true) state.sent += tail;
        const piece = new AnswerPiece(c.endpoint.format.deltaEvent(state.like, channel, tail), false);
        piece.changed = true;
        piece.text = tail;
        keepText(c, tail);
        added.push(piece);
      }
      return added;
    },
  };
}

function redactWhole(c: ProxyContext, piece: AnswerPiece): void {
  const redactor = c.policySet!.outputRedactor;
  let count = 0;
  let entities: EntityTally | null = null;
  const texts: string[] = [];
  let size = 0;
  c.endpoint.format.visitAnswer(piece.body, (text) => {
    let out = text;
    if (redactor) {
      const r = redactor.redact(text);
      count += r.matches.length;
      entities = tallyEntities(r.matches, entities);
      out = r.text;
    }
    if (size < ANSWER_TEXT_CAP) {
      texts.push(out);
      size += out.length;
    }
    return out;
  });
  c.outputRedactions = count;
  c.outputRedactionEntities = entities;
  if (count > 0) piece.changed = true;
  piece.text = c.answerText = texts.join('\n');
}

function redactEvent(c: ProxyContext, piece: AnswerPiece): void {
  const format = c.endpoint.format;
  const body = piece.body;
  const redactor = c.policySet?.outputRedactor ?? null;
  let text = '';
  const keepSent = format.repeatsStreamedText === true;
  format.visitEvent(body, (channel, raw) => {
    if (redactor === null) {
      text += raw;
      return raw;
    }
    const state = channelOf(c, channel, body);
    const safe = state.redactor.push(raw);
    if (safe !== raw) piece.changed = true;
    if (keepSent) state.sent += safe;
    text += safe;
    return safe;
  });
  if (redactor !== null && c.outputChannels !== null) {
    for (const channel of format.endedChannels(body, c.outputChannels)) {
      const state = c.outputChannels.get(channel);
      if (!state || state.ended) continue;
      state.ended = true;
      const tail = state.redactor.end();
      if (!tail) continue;
      if (keepSent) state.sent += tail;
      if (format.appendDelta(body, channel, tail)) piece.changed = true;
      else (piece.before ??= []).push(format.deltaEvent(state.like, channel, tail));
      text += tail;
    }
  }
  if (redactor !== null && format.visitFinal !== undefined) {
    format.visitFinal(body, (channel, raw) => {
      const state = keepSent ? c.outputChannels?.get(channel) : undefined;
      let out: string;
      if (state !== undefined && state.ended) out = state.sent;
      else {
        // A text the stream never sent in deltas: the client reads it here first.
        out = redactor.redact(raw).text;
        text += out;
      }
      if (out !== raw) piece.changed = true;
      return out;
    });
  }
  piece.text = text;
  if (text) keepText(c, text);
}

function channelOf(c: ProxyContext, channel: number, like: Record<string, unknown>): OutputChannel {
  const channels = (c.outputChannels ??= new Map());
  let state = channels.get(channel);
  if (!state) {
    state = { redactor: c.policySet!.outputRedactor!.createStream(), ended: false, like, sent: '' };
    channels.set(channel, state);
  }
  return state;
}

/** A stream's text as relayed, bounded, for the checks at its end and the ledger. */
function keepText(c: ProxyContext, text: string): void {
  if (c.answerText.length < ANSWER_TEXT_CAP) c.answerText += text;
}
