import type { CorpusSample } from './build-corpus.js';
import type { PiiEntity, PiiMatch, PiiRedactor } from '@aduana/gateway/pii';
import { ALL_PII_ENTITIES } from '@aduana/gateway/pii';

export interface EntityScore {
  entity: PiiEntity;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
}

export interface CorpusError {
  id: string;
  type: 'FP' | 'FN';
  entity: PiiEntity;
  text: string;
  span: string;
}

export interface CorpusEvaluation {
  samples: number;
  scores: EntityScore[];
  errors: CorpusError[];
}

const key = (m: PiiMatch): string => `${m.entity}:${m.start}:${m.end}`;

/**
 * Precision and recall per entity over the labelled corpus. A true positive is an exact span with the right entity;
 * a found span that differs in any way is a false positive, and the labelled one it missed a false negative.
 */
export function evaluateCorpus(redactor: PiiRedactor, corpus: readonly CorpusSample[]): CorpusEvaluation {
  const counts = new Map<PiiEntity, { tp: number; fp: number; fn: number }>(
    ALL_PII_ENTITIES.map((e) => [e, { tp: 0, fp: 0, fn: 0 }]),
  );
  const errors: CorpusError[] = [];
  for (const s of corpus) {
    const found = redactor.scan(s.text);
    const want = new Set(s.spans.map(key));
    const got = new Set(found.map(key));
    for (const m of found) {
      const c = counts.get(m.entity);
      if (!c) continue;
      if (want.has(key(m))) c.tp++;
      else {
        c.fp++;
        errors.push({ id: s.id, type: 'FP', entity: m.entity, text: s.text, span: s.text.slice(m.start, m.end) });
      }
    }
    for (const m of s.spans) {
      if (got.has(key(m))) continue;
      const c = counts.get(m.entity);
      if (c) c.fn++;
      errors.push({ id: s.id, type: 'FN', entity: m.entity, text: s.text, span: s.text.slice(m.start, m.end) });
    }
  }
  const scores = ALL_PII_ENTITIES.map((entity) => {
    const c = counts.get(entity) as { tp: number; fp: number; fn: number };
    return {
      entity,
      ...c,
      precision: c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp),
      recall: c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn),
    };
  });
  return { samples: corpus.length, scores, errors };
}
