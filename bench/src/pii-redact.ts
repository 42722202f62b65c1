/**
 * PII redaction micro-benchmarks (the proxy's redact stage; targets in docs/benchmarks.md).
 *   npx tsc -b gateway bench && node bench/dist/pii-redact.js
 * 1. redact() on a ~1 KB prompt without PII and with 3 entities, all entities enabled (target: no-PII well under 20 µs).
 * 2. Stream redaction of a ~2 KB answer pushed in 20-character chunks (per answer and per chunk).
 * 3. The matching strategies we weighed, on the same inputs: RE2.Set prefilter (kept), one combined alternation,
 *    per-recognizer scans without a prefilter, and for the positive path string vs one shared UTF-8 buffer.
 */
import { fmt, microBench, table } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import type { Candidate } from '@aduana/gateway/pii/compile';
import { pii, piiCompile } from './pii-module.js';

const PROMPT_1KB = `You are a helpful assistant for the logistics team. Summarise the following shipment notes in three bullet points
and flag anything that looks late. Notes: the pallet left the Campinas warehouse on Tuesday at 14:30 and was scanned at
the Curitiba hub two days later; version 2.4.1 of the routing service assigned it to lane 7 with 12 other parcels, and
the expected delivery window is 3 to 5 business days. The customer asked whether the order can be split into two
deliveries, whether insurance covers water damage, and how returns work for items over 30 kg. Please answer in
Portuguese, keep it under 120 words, use a friendly tone, and do not promise dates we cannot keep. Also mention that
the new tracking page is live and that the support team answers within 24 hours on weekdays. Thanks! Context for
the model: temperature 0.2, top_p 0.9, the previous answer had 87 tokens and scored 4.5 out of 5 in review. Ok.`;

const PROMPT_3_PII = PROMPT_1KB.replace(
  'the Campinas warehouse on Tuesday at 14:30',
  'Campinas (ana.souza@example.com.br, +55 11 91234-5678, CPF 529.982.247-25) on Tuesday',
);

const ANSWER_2KB = (
  'Claro! Aqui está o resumo das notas de envio. O palete saiu de Campinas na terça-feira e chegou ao centro de ' +
  'Curitiba dois dias depois; a previsão de entrega é de 3 a 5 dias úteis. O seguro cobre danos por água até ' +
  'R$ 5.000,00 e devoluções acima de 30 kg seguem o processo padrão. Para dúvidas, o cliente pode escrever para ' +
  'ana.souza@example.com.br ou ligar para (11) 91234-5678; a nova página de rastreamento já está no ar. '
)
  .repeat(5)
  .slice(0, 2000);

// Fresh string instances per call, as on the request path (RE2 caches the UTF-8 copy of the last string it saw).
const variants = (s: string): string[] => Array.from({ length: 64 }, (_, i) => s + ' '.repeat(i));
const clean = variants(PROMPT_1KB);
const dirty = variants(PROMPT_3_PII);
let n = 0;
const next = (xs: string[]): string => xs[n++ & 63] as string;

const t0 = performance.now();
const redactor = pii.createPiiRedactor();
const compileMs = performance.now() - t0;
const c = piiCompile.compilePii(pii.ALL_PII_ENTITIES);
if (redactor.redact(PROMPT_1KB).matches.length !== 0) throw new Error('clean prompt has PII');
if (redactor.redact(PROMPT_3_PII).matches.length !== 3) throw new Error('dirty prompt must have 3 entities');

const chunks: string[] = [];
for (let i = 0; i < ANSWER_2KB.length; i += 20) chunks.push(ANSWER_2KB.slice(i, i + 20));
const streamOnce = (): string => {
  const s = redactor.createStream();
  let out = '';
  for (const ch of chunks) out += s.push(ch);
  return out + s.end();
};
if (streamOnce() !== redactor.redact(ANSWER_2KB).text) throw new Error('stream and redact disagree');

// Hold-back on an answer without PII (output = input there): how far behind the upstream the client is.
const plainAnswer = ANSWER_2KB.replace(/ana\.souza@example\.com\.br|\(11\) 91234-5678/g, 'o suporte');
const held: number[] = [];
{
  const s = redactor.createStream();
  let pushed = 0;
  let emitted = 0;
  for (let i = 0; i < plainAnswer.length; i += 20) {
    const ch = plainAnswer.slice(i, i + 20);
    pushed += ch.length;
    emitted += s.push(ch).length;
    held.push(pushed - emitted);
  }
  s.end();
}
// Latency of one push(), the figure that adds to each SSE event on the wire.
const pushNs: number[] = [];
for (let round = 0; round < 300; round++) {
  const s = redactor.createStream();
  for (const ch of chunks) {
    const t = process.hrtime.bigint();
    s.push(ch);
    pushNs.push(Number(process.hrtime.bigint() - t));
  }
  s.end();
}
pushNs.sort((a, b) => a - b);
const pushP = (q: number): number => (pushNs[Math.min(pushNs.length - 1, Math.floor(q * pushNs.length))] as number) / 1000;

const heldMean = held.reduce((a, b) => a + b, 0) / held.length;
const heldMax = Math.max(...held);

const RE2 = c.regexes[0]?.constructor as unknown as new (p: string, f: string) => { test(s: string): boolean };
const combined = new RE2(c.recognizers.map((r) => `(?:${r.pattern})`).join('|'), 'u');
const scanAllNoPrefilter = (text: string): number => {
  const out: Candidate[] = [];
  for (let k = 0; k < c.recognizers.length; k++) piiCompile.scanOne(c, k, text, 0, out);
  return out.length;
};
const scanHits = (text: string, shareBuffer: boolean): number => {
  const out: Candidate[] = [];
  const hits = c.set?.match(text) ?? [];
  const buf = shareBuffer ? Buffer.from(text) : undefined;
  for (const k of hits) piiCompile.scanOne(c, k, text, 0, out, buf);
  return out.length;
};

const main = await microBench({
  'redact 1 KB, no PII': () => redactor.redact(next(clean)),
  'redact 1 KB, 3 entities': () => redactor.redact(next(dirty)),
  'stream 2 KB answer, 20-char chunks': streamOnce,
});
const strategies = await microBench(
  {
    'no PII: RE2.Set prefilter (kept)': () => c.set?.match(next(clean)),
    'no PII: one combined alternation .test': () => combined.test(next(clean)),
    'no PII: every recognizer, no prefilter': () => scanAllNoPrefilter(next(clean)),
    '3 PII: Set + per-recognizer, string input': () => scanHits(next(dirty), false),
    '3 PII: Set + per-recognizer, shared buffer (kept)': () => scanHits(next(dirty), true),
  },
  { timeMs: 1000 },
);

const streamRes = main[2];
console.log(`\nPII redaction, all ${pii.ALL_PII_ENTITIES.length} entities (${c.recognizers.length} recognizers); compile once: ${fmt(compileMs, 1)} ms`);
console.log(`prompt ${PROMPT_1KB.length} chars; answer ${ANSWER_2KB.length} chars in ${chunks.length} chunks\n`);
console.log(
  table(
    ['task', 'ops/s', 'mean µs', 'p50 µs', 'p99 µs'],
    main.map((r) => [r.name, r.opsPerSec, fmt(r.meanUs, 2), fmt(r.p50Us, 2), fmt(r.p99Us, 2)]),
  ),
);
if (streamRes) console.log(`stream: ${fmt(streamRes.meanUs / chunks.length, 2)} µs per 20-char chunk on average`);
console.log(`stream push() latency over ${pushNs.length} chunks: p50 ${fmt(pushP(0.5), 2)} µs, p99 ${fmt(pushP(0.99), 2)} µs, max ${fmt(pushP(1), 1)} µs`);
console.log(`stream hold-back on prose (chars not yet emitted after each chunk): mean ${fmt(heldMean, 1)}, max ${heldMax}`);
console.log('\nMatching strategies (same inputs)\n');
console.log(table(['strategy', 'ops/s', 'mean µs', 'p99 µs'], strategies.map((r) => [r.name, r.opsPerSec, fmt(r.meanUs, 2), fmt(r.p99Us, 2)])));
console.log('\ntarget: redact 1 KB without PII well under 20 µs');
console.log(`results: ${writeResults('pii-redact', { compileMs, main, strategies, heldMean, heldMax, pushP50Us: pushP(0.5), pushP99Us: pushP(0.99) })}`);
