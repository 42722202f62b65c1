import { loadConfig, type ConfigValues } from '@aduana/shared';

/** Every gateway setting: env name, type, default. Read and validated once at start (docs/architecture.md). */
export const GATEWAY_CONFIG = {
  host: { env: 'HOST', type: 'string', default: '127.0.0.1', description: 'address the gateway and auth service bind to' },
  port: { env: 'GATEWAY_PORT', type: 'integer', default: 8080, minimum: 0, maximum: 65535, description: 'governance API and proxy port (0 = ephemeral)' },
  authPort: { env: 'AUTH_PORT', type: 'integer', default: 8081, minimum: 0, maximum: 65535, description: 'authentication service port (0 = ephemeral)' },
  dataDir: { env: 'DATA_DIR', type: 'string', default: './data', description: 'directory of the LMDB environments and bootstrap secrets' },
  logLevel: { env: 'LOG_LEVEL', type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], description: 'pino log level' },
  apiBodyLimit: { env: 'API_BODY_LIMIT', type: 'integer', default: 1024 * 1024, minimum: 1024, description: 'largest governance API body, bytes (413 past it)' },
  proxyBodyLimit: { env: 'PROXY_BODY_LIMIT', type: 'integer', default: 10 * 1024 * 1024, minimum: 1024, description: 'largest proxy body, bytes (413 past it)' },
  bodyBytesInFlightMax: { env: 'BODY_BYTES_IN_FLIGHT_MAX', type: 'integer', default: 64 * 1024 * 1024, minimum: 64 * 1024, description: 'request body bytes held at once across all requests of both ports (503 past it)' },
  tenantBodyBytesInFlightMax: { env: 'TENANT_BODY_BYTES_IN_FLIGHT_MAX', type: 'integer', default: 32 * 1024 * 1024, minimum: 64 * 1024, description: "one tenant's share of BODY_BYTES_IN_FLIGHT_MAX (429 past it)" },
  listDefaultLimit: { env: 'LIST_DEFAULT_LIMIT', type: 'integer', default: 50, minimum: 1, maximum: 500, description: 'default `limit` of list endpoints' },
  listMaxLimit: { env: 'LIST_MAX_LIMIT', type: 'integer', default: 500, minimum: 1, maximum: 10_000, description: 'largest accepted `limit` of list endpoints' },
  batchMaxEvents: { env: 'BATCH_MAX_EVENTS', type: 'integer', default: 100, minimum: 1, maximum: 1000, description: 'largest event batch (413 past it)' },
  upstreamBaseUrl: { env: 'UPSTREAM_BASE_URL', type: 'string', default: 'https://api.openai.com/v1', description: 'LLM provider base URL the proxy forwards to' },
  upstreamApiKey: { env: 'UPSTREAM_API_KEY', type: 'string', default: '', description: 'provider key held by the sidecar (used when the caller sends none)' },
  forwardProviderRoutingHeaders: { env: 'FORWARD_PROVIDER_ROUTING_HEADERS', type: 'boolean', default: false, description: "send the client's OpenAI-Organization/OpenAI-Project with UPSTREAM_API_KEY (always sent with the client's own key)" },
  upstreamTimeoutMs: { env: 'UPSTREAM_TIMEOUT_MS', type: 'integer', default: 120_000, minimum: 100, description: 'time allowed for the upstream to answer (headers), ms' },
  upstreamConnections: { env: 'UPSTREAM_CONNECTIONS', type: 'integer', default: 128, minimum: 1, description: 'keep-alive connections in the upstream pool' },
  ledgerGroupCommitMs: { env: 'LEDGER_GROUP_COMMIT_MS', type: 'integer', default: 5, minimum: 0, maximum: 1000, description: 'window within which proxy/decision ledger entries are group-committed, ms' },
  checkpointEvery: { env: 'CHECKPOINT_EVERY', type: 'integer', default: 1000, minimum: 1, description: 'signed ledger checkpoint every N entries' },
  checkpointIntervalS: { env: 'CHECKPOINT_INTERVAL_S', type: 'integer', default: 60, minimum: 1, description: 'signed ledger checkpoint at least every T seconds (when new entries exist)' },
  anchorUrl: { env: 'ANCHOR_URL', type: 'string', default: '', description: 'where each ledger checkpoint is POSTed (empty = off)' },
  policyMaxPolicies: { env: 'POLICY_MAX_POLICIES', type: 'integer', default: 1000, minimum: 1, description: 'policies per tenant (400 past it)' },
  policyMaxPatterns: { env: 'POLICY_MAX_PATTERNS', type: 'integer', default: 200, minimum: 1, description: 'content-filter patterns per tenant, all filters together (400 past it)' },
  policyMaxPatternSize: { env: 'POLICY_MAX_PATTERN_SIZE', type: 'integer', default: 200, minimum: 10, description: 'estimated compiled size of one pattern, counted repetitions expanded (400 past it)' },
  policyMaxProgramSize: { env: 'POLICY_MAX_PROGRAM_SIZE', type: 'integer', default: 5000, minimum: 10, description: "estimated compiled size of all of a tenant's patterns (400 past it)" },
  evalMaxTextChars: { env: 'EVAL_MAX_TEXT_CHARS', type: 'integer', default: 1024 * 1024, minimum: 1024, description: 'characters of request text a tenant with input policies may send to be judged (413 past it)' },
  evalInlineMaxChars: { env: 'EVAL_INLINE_MAX_CHARS', type: 'integer', default: 64 * 1024, minimum: 0, description: 'proxied requests with more text than this are judged in a worker thread, characters' },
  evalWorkerTimeoutMs: { env: 'EVAL_WORKER_TIMEOUT_MS', type: 'integer', default: 5000, minimum: 100, description: 'time allowed to judge one large input in the worker, ms (413 past it, nothing forwarded)' },
  evalTimeBurstMs: { env: 'EVAL_TIME_BURST_MS', type: 'integer', default: 2000, minimum: 1, description: 'policy-evaluation time a tenant may use at once before it is refused (429), ms' },
  evalTimePerSecondMs: { env: 'EVAL_TIME_PER_S_MS', type: 'integer', default: 250, minimum: 1, maximum: 1000, description: 'policy-evaluation time a tenant earns back per second, ms (its sustained share of the event loop)' },
  ledgerMaxModelLength: { env: 'LEDGER_MAX_MODEL_LENGTH', type: 'integer', default: 256, minimum: 16, maximum: 65_536, description: 'longest proxied `model`, characters: it goes into the ledger entry (400 past it)' },
  patTtlDays: { env: 'PAT_TTL_DAYS', type: 'integer', default: 90, minimum: 1, description: 'default lifetime of a personal access token' },
  patMaxTtlDays: { env: 'PAT_MAX_TTL_DAYS', type: 'integer', default: 365, minimum: 1, maximum: 3650, description: 'longest lifetime POST /token issues (400 past it); never past the minting token\'s own expiry' },
  verifyFailuresPerMinute: { env: 'VERIFY_FAILURES_PER_MINUTE', type: 'integer', default: 30, minimum: 1, description: 'failed GET /verify calls per client address per minute (and burst) before 429' },
  priceTable: { env: 'MODEL_PRICES_BRL', type: 'string', default: '', description: 'JSON {model: {input, output}} in BRL per 1K tokens, merged over the built-in table' },
  heartbeatIntervalS: { env: 'HEARTBEAT_INTERVAL_S', type: 'integer', default: 30, minimum: 1, maximum: 86_400, description: 'expected heartbeat interval of an agent, s: STALE after 2 without one; each missed interval counts once in heartbeat.missed_count' },
  requireRegisteredAgents: { env: 'REQUIRE_REGISTERED_AGENTS', type: 'boolean', default: false, description: 'refuse (403, rule agent_unregistered) an agent id that was never registered, instead of registering it on first use' },
  agentsMaxPerTenant: { env: 'AGENTS_MAX_PER_TENANT', type: 'integer', default: 10_000, minimum: 1, description: 'agents a tenant may have (403, rule agent_limit, past it): each is held in memory' },
  agentFlushMs: { env: 'AGENT_FLUSH_MS', type: 'integer', default: 1000, minimum: 10, maximum: 60_000, description: "how often agents' last_seen, risk_score and heartbeat state are written to LMDB, ms (batched off the request path)" },
  telemetryRetentionDays: { env: 'TELEMETRY_RETENTION_DAYS', type: 'integer', default: 7, minimum: 1, maximum: 3650, description: 'days metric samples, logs and error events are kept (queries before that answer 400)' },
  telemetryPruneIntervalS: { env: 'TELEMETRY_PRUNE_INTERVAL_S', type: 'integer', default: 3600, minimum: 1, description: 'how often telemetry past its retention is deleted, s' },
  telemetryIngestBodyLimit: { env: 'TELEMETRY_INGEST_BODY_LIMIT', type: 'integer', default: 256 * 1024, minimum: 1024, description: 'largest POST /v1/telemetry/ingest body, bytes (413 past it)' },
  otlpEndpoint: { env: 'OTEL_EXPORTER_OTLP_ENDPOINT', type: 'string', default: '', description: 'OpenTelemetry collector base URL; logs go to /v1/logs and metrics to /v1/metrics as OTLP/HTTP JSON (empty = DISABLED)' },
  otlpHeaders: { env: 'OTEL_EXPORTER_OTLP_HEADERS', type: 'string', default: '', description: 'extra headers for the collector, `k1=v1,k2=v2` (values URL-encoded)' },
  sentryDsn: { env: 'SENTRY_DSN', type: 'string', default: '', description: 'DSN of a Sentry-compatible tracker that receives error events as envelopes (empty = DISABLED)' },
  telemetryQueueMax: { env: 'TELEMETRY_QUEUE_MAX', type: 'integer', default: 10_000, minimum: 1, description: 'items each forwarder holds while its provider is slow or down; past it new items are dropped and counted' },
  telemetryBatchMax: { env: 'TELEMETRY_BATCH_MAX', type: 'integer', default: 256, minimum: 1, description: 'items per forwarded request' },
  telemetryFlushMs: { env: 'TELEMETRY_FLUSH_MS', type: 'integer', default: 1000, minimum: 10, description: 'how often forwarders send what they hold (and metrics are collected for OTLP), ms' },
  telemetryRetryBaseMs: { env: 'TELEMETRY_RETRY_BASE_MS', type: 'integer', default: 1000, minimum: 10, description: 'first retry delay of a failed forward, ms; doubles per failure' },
  telemetryRetryMaxMs: { env: 'TELEMETRY_RETRY_MAX_MS', type: 'integer', default: 30_000, minimum: 10, description: 'longest retry delay of a failed forward, ms' },
  telemetryExportTimeoutMs: { env: 'TELEMETRY_EXPORT_TIMEOUT_MS', type: 'integer', default: 5000, minimum: 100, description: 'time allowed for one forward request, ms' },
  quietBootstrap: { env: 'ADUANA_QUIET_BOOTSTRAP', type: 'boolean', default: false, description: 'do not print bootstrap secrets to stdout (they are still written to DATA_DIR)' },
} as const;

export type GatewayConfig = ConfigValues<typeof GATEWAY_CONFIG>;

export function loadGatewayConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: Partial<Record<keyof typeof GATEWAY_CONFIG, string | number | boolean>> = {},
): GatewayConfig {
  const config = loadConfig(GATEWAY_CONFIG, env, overrides);
  if (config.patTtlDays > config.patMaxTtlDays) throw new Error(`PAT_TTL_DAYS: ${config.patTtlDays} is longer than PAT_MAX_TTL_DAYS (${config.patMaxTtlDays})`);
  return config;
}
