/**
 * PII accuracy on the labelled corpus (targets in docs/benchmarks.md): per entity TP/FP/FN, precision and recall, exact spans.
 *   npx tsc -b gateway bench && node bench/dist/pii-accuracy.js [--seed N] [--errors]
 * Target: precision and recall >= 0.95 for every entity.
 */
import { fmt, table } from './harness/micro-bench.js';
import { pii, piiCorpus } from './pii-module.js';

const argv = process.argv.slice(2);
const seedAt = argv.indexOf('--seed');
const seed = seedAt >= 0 ? Number(argv[seedAt + 1]) : piiCorpus.CORPUS_SEED;
const corpus = piiCorpus.buildCorpus(seed);
const { scores, errors } = piiCorpus.evaluateCorpus(pii.createPiiRedactor(), corpus);

const kinds = new Map<string, number>();
for (const s of corpus) kinds.set(s.kind, (kinds.get(s.kind) ?? 0) + 1);
console.log(`\nPII corpus: ${corpus.length} texts (seed ${seed}): ${[...kinds].map(([k, v]) => `${v} ${k}`).join(', ')}\n`);
console.log(
  table(
    ['entity', 'TP', 'FP', 'FN', 'precision', 'recall', 'target'],
    scores.map((s) => [s.entity, s.tp, s.fp, s.fn, fmt(s.precision, 3), fmt(s.recall, 3), s.precision >= 0.95 && s.recall >= 0.95 ? 'met' : 'MISSED']),
  ),
);
if (argv.includes('--errors') || errors.length <= 10) {
  for (const e of errors) console.log(`${e.type} ${e.entity} ${JSON.stringify(e.span)} in ${e.id}: ${JSON.stringify(e.text.slice(0, 120))}`);
} else {
  console.log(`\n${errors.length} errors (--errors to list them)`);
}
