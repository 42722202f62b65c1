import { parentPort } from 'node:worker_threads';
import { compilePolicySet, type InputFindings, type PolicySet } from '../compile-policy-set.js';
import type { PolicyRecord } from '../policy-record.js';
import { type EntityTally, RedactionCount } from '../pii/entity-tally.js';

/** One large input to judge: the request's strings in walk order (their '\n'-join is the text policies read). */
export interface EvalJob {
  id: number;
  tenantId: string;
  version: number;
  records: readonly PolicyRecord[];
  /** The request's set among those narrowed from the tenant's (its scopeMask; '' the tenant's own). */
  scopeMask: string;
  strings: string[];
}

export interface EvalResult {
  id: number;
  findings: InputFindings | null;
  /** The strings with personal data redacted (same order), when the set redacts and found something; else null. */
  redacted: string[] | null;
  redactions: number;
  /** Redactions per entity, when any. */
  entities?: EntityTally | null;
  error: string | null;
}

// Compiled sets by tenant, rebuilt when the version moves; a few tenants at most send large inputs.
const sets = new Map<string, PolicySet>();
const MAX_SETS = 64;

function setFor(job: EvalJob): PolicySet {
  let set = sets.get(job.tenantId);
  if (!set || set.version !== job.version) {
    set = compilePolicySet(job.tenantId, job.version, job.records);
    if (sets.size >= MAX_SETS) sets.delete(sets.keys().next().value as string);
    sets.set(job.tenantId, set);
  }
  return set;
}

function run(job: EvalJob): EvalResult {
  const set = setFor(job).withMask(job.scopeMask);
  const findings = set.scanInput(job.strings.join('\n'));
  const redactor = set.inputRedactor;
  if (!redactor || !findings.pii.some((e) => (redactor.entities as readonly string[]).includes(e))) {
    return { id: job.id, findings, redacted: null, redactions: 0, entities: null, error: null };
  }
  const tally = new RedactionCount(redactor);
  const redacted = job.strings.map(tally.redact);
  return { id: job.id, findings, redacted, redactions: tally.count, entities: tally.entities, error: null };
}

parentPort?.on('message', (job: EvalJob) => {
  let out: EvalResult;
  try {
    out = run(job);
  } catch (err) {
    out = { id: job.id, findings: null, redacted: null, redactions: 0, entities: null, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(out);
});
