/**
 * The LZ4 dictionary ledger records are compressed with (record-compression.ts; records of earlier builds were
 * compressed by lmdb-js with the same bytes, store.ts). A record is ~0.5–1 KB of canonical JSON whose
 * keys and common values repeat in every entry; LZ4 alone finds few repeats inside one record, but with these texts
 * as a shared prefix it stores each repeat as a back-reference (a proxied call's record: ~930 B down to ~300 B).
 *
 * These bytes are part of the stored format: a record compressed with them can only be read with exactly them.
 * Never edit this text; a better dictionary needs a new database (and a reader for both), see docs/ledger.md.
 */
const TEMPLATES = [
  '{"created_at":"2026-01-01T00:00:00.000Z","decision":{"decision_id":"dec_01","execution_status":"ALLOW","policy_version":"v1","risk_score":0,"rule":"","trace_id":""},"event_type":"tool.invoked","metadata":{"agent_id":"agent","session_id":""},"payload":{"args":{},"step":0,"tool":""},"prev_hash":"","seq":1,"tenant_id":"default"}',
  '{"created_at":"2026-01-01T00:00:00.000Z","decision":{"decision_id":"dec_01","execution_status":"DENY","policies_evaluated":1,"policy_version":"v1","risk_score":100,"rule":"rate_limit","triggered":[{"action":"DENY","policy_id":"pol_01","risk":100,"type":"rate_limit"},{"action":"FLAG","policy_id":"pol_01","risk":0,"type":"content_filter"},{"action":"REDACT","policy_id":"pol_01","risk":0,"type":"pii_redaction"},{"action":"ESCALATE","policy_id":"pol_01","risk":0,"type":"entropy_check"},{"action":"REQUIRE_APPROVAL","policy_id":"pol_01","risk":0,"type":"bond_enforcement"},{"action":"DENY","policy_id":"pol_01","risk":0,"type":"budget"},{"action":"FLAG","policy_id":"pol_01","risk":0,"type":"hallucination_shield"}]},"event_type":"decision.resolved","metadata":{"agent_id":"agent","session_id":"","trace_id":""},"payload":{"resolution":"approved"},"prev_hash":"","seq":1,"tenant_id":"default"}',
  '{"created_at":"2026-01-01T00:00:00.000Z","decision":{"decision_id":"dec_01","execution_status":"ALLOW","policies_evaluated":6,"policy_version":"v1","risk_score":0,"rule":"","triggered":[]},"event_type":"decision","metadata":{"agent_id":"agent","session_id":"","trace_id":""},"payload":{"action":{"method":"POST","target":"https://","type":"tool_call"},"context":{"session_id":""},"latency_ms":0.0,"request_sha256":""},"prev_hash":"","seq":1,"tenant_id":"default"}',
  '{"created_at":"2026-01-01T00:00:00.000Z","decision":{"decision_id":"dec_01","execution_status":"ALLOW","policies_evaluated":6,"policy_version":"v1","risk_score":0,"rule":"","triggered":[]},"event_type":"proxy.chat.completions","metadata":{"agent_id":"agent","decision_id":"dec_01","session_id":"","trace_id":""},"payload":{"cost_brl":0.0,"endpoint":"chat","governance_us":0,"input_redactions":0,"model":"gpt-4o-mini","outcome":"completed","output_redactions":0,"output_sha256":"","stream":false,"upstream_status":200,"usage":{"completion_tokens":0,"prompt_tokens":0,"total_tokens":0}},"prev_hash":"","seq":1,"tenant_id":"default"}',
];

/** lmdb-js reads the dictionary in 8-byte words: padded with spaces to a multiple of 8 (part of the bytes since). */
function padded(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const out = Buffer.alloc(Math.ceil(bytes.length / 8) * 8, 0x20);
  bytes.copy(out);
  return out;
}

export const RECORD_DICTIONARY: Buffer = padded(TEMPLATES.join(''));

/**
 * Version 3's dictionary (record-codec.ts): the first one's texts, then a proxied call's entry as it is written now
 * (stages, redactions per entity, the unpriced mark), whose newer keys the first one lacks. Texts are compressed with
 * their lowercase hex ids packed (record-packing.ts), so hashes and ids here are empty. Part of the stored format too:
 * never edit it.
 */
const TEMPLATES_V3 = [
  '{"created_at":"2026-01-01T00:00:00.000Z","decision":{"decision_id":"dec_01","execution_status":"ALLOW","policies_evaluated":6,"policy_version":"v1","risk_score":0,"rule":"","triggered":[]},"event_type":"proxy.chat.completions","metadata":{"agent_id":"agent","decision_id":"dec_01","session_id":"","trace_id":""},"payload":{"cost_brl":0.0,"endpoint":"chat","governance_us":0,"input_redaction_entities":{"EMAIL":1},"input_redactions":0,"model":"gpt-4o-mini","outcome":"completed","output_redaction_entities":{"EMAIL":1},"output_redactions":0,"output_sha256":"","priced":false,"stages_us":{"answer":0,"policies":0,"redaction":0,"request":0,"upstream":0},"stream":false,"upstream_status":200,"usage":{"completion_tokens":0,"prompt_tokens":0,"total_tokens":0}},"prev_hash":"","seq":1,"tenant_id":"default"}',
];

export const RECORD_DICTIONARY_V3: Buffer = padded(TEMPLATES.join('') + TEMPLATES_V3.join(''));

/** Texts shorter than this are stored as they are. */
export const COMPRESS_FROM_BYTES = 64;
