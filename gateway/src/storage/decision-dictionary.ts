/**
 * The LZ4 dictionary the `decisions` database is compressed with (gateway-store.ts). A decision record is a ~350-byte
 * msgpack map whose thirteen key names and common values take nearly half of it; with them as a shared prefix, LZ4
 * stores each as a back-reference.
 *
 * These bytes are part of the stored format: a value compressed with them can only be read with exactly them. Never
 * edit the list; a better dictionary needs a new database (and a reader for both), see docs/ledger.md.
 */
const STRINGS = [
  'resolution', 'status', 'note', 'resolved_by', 'resolved_at', 'APPROVED', 'REJECTED',
  'triggered', 'policyId', 'type', 'action', 'risk', 'rate_limit', 'content_filter', 'pii_redaction', 'budget', 'DENY', 'FLAG', 'REDACT',
  'decision_id', 'dec_01', 'tenant_id', 'default', 'agent_id', 'execution_status', 'ALLOW', 'risk_score', 'event_type',
  'proxy.chat.completions', 'decision', 'trace_id', 'created_at', '2026-01-01T00:00:00.000Z', 'rule', 'policy_version', 'v1',
  'policies_evaluated', 'triggered', 'resolution',
];

/** Each string as msgpack writes a short string (0xa0 + length, then the bytes), padded to 8-byte words for lmdb-js. */
function build(): Buffer {
  const parts = STRINGS.map((s) => {
    const bytes = Buffer.from(s, 'utf8');
    return Buffer.concat([Buffer.from([0xa0 + bytes.length]), bytes]);
  });
  const joined = Buffer.concat(parts);
  const out = Buffer.alloc(Math.ceil(joined.length / 8) * 8, 0xc0); // msgpack nil as padding
  joined.copy(out);
  return out;
}

export const DECISION_DICTIONARY: Buffer = build();
