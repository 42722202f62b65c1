import type { PiiEntity, PiiMatch } from '@aduana/gateway/pii';
import { ALL_PII_ENTITIES } from '@aduana/gateway/pii';
import { ENCODED_CLEAN_TEXTS, ENCODINGS } from './encoded.js';
import { HAND_WRITTEN, parseMarked } from './hand-written.js';
import { createPrng } from './prng.js';
import { CLEAN_TEXTS, NEAR_MISS_TEMPLATES, TEMPLATES } from './templates.js';
import { ENTITY_VALUES } from './values.js';

export interface CorpusSample {
  id: string;
  kind: 'positive' | 'near-miss' | 'mixed' | 'clean' | 'hand' | 'encoded';
  /** The entity this sample exercises (positives and near misses). */
  target?: PiiEntity;
  /** What the near miss imitates. */
  note?: string;
  text: string;
  /** Every entity in the text, exactly. */
  spans: PiiMatch[];
}

export const CORPUS_SEED = 20261122;
const PER_ENTITY = 120;
const ENCODED_PER_ENTITY = 25;
const ENCODED_MISSES_PER_ENTITY = 15;

function fill(template: string, value: string): { text: string; start: number } {
  const at = template.indexOf('{v}');
  return { text: template.slice(0, at) + value + template.slice(at + 3), start: at };
}

/**
 * The labelled corpus, generated deterministically: per entity, valid values in every supported format inside
 * English and Portuguese sentences, and near misses of every listed kind; then mixed sentences, clean prose and the
 * hand-written cases.
 */
export function buildCorpus(seed = CORPUS_SEED): CorpusSample[] {
  const r = createPrng(seed);
  const out: CorpusSample[] = [];
  for (const ev of ENTITY_VALUES) {
    const templates = TEMPLATES[ev.entity];
    for (let i = 0; i < PER_ENTITY; i++) {
      const value = (ev.formats[i % ev.formats.length] as (p: typeof r) => string)(r);
      const { text, start } = fill(r.pick(templates), value);
      out.push({
        id: `${ev.entity}-pos-${i}`,
        kind: 'positive',
        target: ev.entity,
        text,
        spans: [{ entity: ev.entity, start, end: start + value.length }],
      });
    }
    for (let i = 0; i < PER_ENTITY; i++) {
      const nm = ev.nearMisses[i % ev.nearMisses.length] as (typeof ev.nearMisses)[number];
      const value = nm.make(r);
      // Half in the entity's own sentences (the context says "card", the value is not one), half in neutral ones.
      const template = i % 2 === 0 ? r.pick(templates) : r.pick(NEAR_MISS_TEMPLATES);
      out.push({ id: `${ev.entity}-miss-${i}`, kind: 'near-miss', target: ev.entity, note: nm.kind, text: fill(template, value).text, spans: [] });
    }
  }
  for (let i = 0; i < 40; i++) {
    const parts: string[] = [];
    const spans: PiiMatch[] = [];
    let text = '';
    for (let j = 0; j < 3; j++) {
      const ev = r.pick(ENTITY_VALUES);
      const value = r.pick(ev.formats)(r);
      const lead = j === 0 ? r.pick(['Cliente ', 'Customer ', 'Dados: ']) : r.pick([', ', '; ', ' e ', ' and ', ' | ']);
      text += lead;
      spans.push({ entity: ev.entity, start: text.length, end: text.length + value.length });
      text += value;
      parts.push(ev.entity);
    }
    text += r.pick(['.', ' — obrigado!', ' (confidential)', '']);
    out.push({ id: `mixed-${i}`, kind: 'mixed', text, spans });
  }
  CLEAN_TEXTS.forEach((text, i) => out.push({ id: `clean-${i}`, kind: 'clean', text, spans: [] }));
  HAND_WRITTEN.forEach((marked, i) => {
    const { text, spans } = parseMarked(marked);
    for (const s of spans) {
      if (!ALL_PII_ENTITIES.includes(s.entity as PiiEntity)) throw new Error(`hand-written case ${i}: unknown entity ${s.entity}`);
    }
    out.push({ id: `hand-${i}`, kind: 'hand', text, spans: spans as PiiMatch[] });
  });
  // Encoded spellings (encoded.ts): valid values and near misses of every entity in each spelling, then prose with
  // escapes and no personal data. Drawn after everything above, so the samples above stay as they were.
  for (const ev of ENTITY_VALUES) {
    const templates = TEMPLATES[ev.entity];
    for (let i = 0; i < ENCODED_PER_ENTITY; i++) {
      const encoding = ENCODINGS[i % ENCODINGS.length] as (typeof ENCODINGS)[number];
      const value = encoding.encode(r.pick(ev.formats)(r));
      const { text, start } = fill(r.pick(templates), value);
      out.push({ id: `${ev.entity}-encoded-${i}`, kind: 'encoded', target: ev.entity, note: encoding.kind, text, spans: [{ entity: ev.entity, start, end: start + value.length }] });
    }
    for (let i = 0; i < ENCODED_MISSES_PER_ENTITY; i++) {
      const encoding = ENCODINGS[i % ENCODINGS.length] as (typeof ENCODINGS)[number];
      const nm = r.pick(ev.nearMisses);
      const text = fill(r.pick(NEAR_MISS_TEMPLATES), encoding.encode(nm.make(r))).text;
      out.push({ id: `${ev.entity}-encoded-miss-${i}`, kind: 'encoded', target: ev.entity, note: `${encoding.kind} ${nm.kind}`, text, spans: [] });
    }
  }
  ENCODED_CLEAN_TEXTS.forEach((text, i) => out.push({ id: `encoded-clean-${i}`, kind: 'encoded', text, spans: [] }));
  return out;
}
