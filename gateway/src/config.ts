import { isWellFormedToken, loadConfig, proxyUrl, type ConfigValues } from '@aduana/shared';
import { parseRedisUrl } from './fleet/limits/redis-url.js';
import { ScrapeCredential } from './telemetry/scrape-credential.js';
import { parseMcpUpstreams } from './mcp/mcp-upstreams.js';
import { parseAllowedOrigins } from './mcp/mcp-origin-check.js';
import { parseMcpSessionShares } from './mcp/mcp-session-shares.js';
import { StoredPrompts } from './proxy/stored/stored-prompts.js';
import { isValidTenantId } from './identity/tenants/tenant-store.js';
import { isValidName as isValidLedgerName } from './ledger/log/entry-input.js';

/** Every gateway setting: env name, type, default. Read and validated once at start (docs/architecture.md). */
export const GATEWAY_CONFIG = {
  host: { env: 'HOST', type: 'string', default: '127.0.0.1', description: 'address the gateway and auth service bind to' },
  port: { env: 'GATEWAY_PORT', type: 'integer', default: 8080, minimum: 0, maximum: 65535, description: 'governance API and proxy port (0 = ephemeral)' },
  agentPort: {
    env: 'AGENT_PORT',
    type: 'integer',
    default: -1,
    minimum: -1,
    maximum: 65535,
    description:
      "the agents' port: the agents' calls (POST /v1/decide, POST /v1/events and its batch, the proxy) served by GATEWAY_THREADS threads, each answering what it receives; every other route is a 404 there (GATEWAY_PORT serves every route, these included, on the main thread). -1 = none; 0 = ephemeral (docs/architecture.md, \"Threads\")",
  },
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
  upstreamApiKey: { env: 'UPSTREAM_API_KEY', type: 'string', default: '', description: 'provider key held by the sidecar (used when the caller sends none, or always with UPSTREAM_API_KEY_MODE=replace)' },
  upstreamApiKeyMode: { env: 'UPSTREAM_API_KEY_MODE', type: 'string', default: 'fill', enum: ['fill', 'replace'], description: "'fill': UPSTREAM_API_KEY goes upstream only when the caller forwards no key of its own; 'replace': it replaces whatever key the caller forwards (a vault-managed key; needs UPSTREAM_API_KEY)" },
  forwardProviderRoutingHeaders: { env: 'FORWARD_PROVIDER_ROUTING_HEADERS', type: 'boolean', default: false, description: "send the client's OpenAI-Organization/OpenAI-Project with UPSTREAM_API_KEY (always sent with the client's own key)" },
  openaiPrompts: { env: 'OPENAI_PROMPTS', type: 'string', default: '', description: "JSON {tenant: [prompt id, …]}: the stored prompts (a Responses call's `prompt.id`, made in the provider's dashboard) each tenant's calls may name; any other is a 404, nothing forwarded (empty = none) (docs/decisions.md, \"Stored responses\")" },
  upstreamAnthropicBaseUrl: { env: 'UPSTREAM_ANTHROPIC_BASE_URL', type: 'string', default: 'https://api.anthropic.com', description: "Anthropic Messages API base URL the proxy's /v1/proxy/anthropic routes forward to" },
  upstreamAnthropicApiKey: { env: 'UPSTREAM_ANTHROPIC_API_KEY', type: 'string', default: '', description: 'Anthropic key held by the sidecar (sent as x-api-key when the caller forwards none in x-forwarded-api-key, or always with UPSTREAM_API_KEY_MODE=replace)' },
  upstreamAzureBaseUrl: { env: 'UPSTREAM_AZURE_BASE_URL', type: 'string', default: '', description: "Azure OpenAI resource URL (https://<resource>.openai.azure.com) the proxy's /v1/proxy/azure routes forward to; unset: those routes are a 404" },
  upstreamAzureApiKey: { env: 'UPSTREAM_AZURE_API_KEY', type: 'string', default: '', description: 'Azure OpenAI key held by the sidecar (sent as api-key when the caller forwards none in x-forwarded-api-key, or always with UPSTREAM_API_KEY_MODE=replace)' },
  upstreamGeminiBaseUrl: { env: 'UPSTREAM_GEMINI_BASE_URL', type: 'string', default: 'https://generativelanguage.googleapis.com', description: "Gemini API base URL the proxy's /v1/proxy/gemini routes forward to" },
  upstreamGeminiApiKey: { env: 'UPSTREAM_GEMINI_API_KEY', type: 'string', default: '', description: 'Gemini key held by the sidecar (sent as x-goog-api-key when the caller forwards none in x-forwarded-api-key, or always with UPSTREAM_API_KEY_MODE=replace)' },
  upstreamTimeoutMs: { env: 'UPSTREAM_TIMEOUT_MS', type: 'integer', default: 120_000, minimum: 100, description: 'time allowed for the upstream to answer (headers), ms' },
  upstreamConnections: { env: 'UPSTREAM_CONNECTIONS', type: 'integer', default: 128, minimum: 1, description: 'keep-alive connections in the upstream pool' },
  httpsProxy: { env: 'HTTPS_PROXY', type: 'string', default: '', description: "egress proxy for the gateway's outbound https: providers, MCP servers, telemetry exporters, the control plane, the TSA, the identity provider (`http://[user:password@]host:port`, a CONNECT tunnel; a bare host:port is http://). `https_proxy` wins when set; empty = HTTP_PROXY, or direct. Decided at start. The scanner always connects directly (docs/sidecar.md)" },
  httpProxy: { env: 'HTTP_PROXY', type: 'string', default: '', description: 'egress proxy for the same connections over plain http, and for https ones when HTTPS_PROXY is empty; `http_proxy` wins when set' },
  noProxy: { env: 'NO_PROXY', type: 'string', default: '', description: 'destinations reached without the egress proxy, comma-separated: `host` (and its subdomains), `*.domain` (subdomains only), `host:port`, an IP address as written in the URL, `*` (all); `no_proxy` wins when set' },
  ledgerGroupCommitMs: { env: 'LEDGER_GROUP_COMMIT_MS', type: 'integer', default: 5, minimum: 0, maximum: 1000, description: 'window within which proxy/decision ledger entries are group-committed, ms' },
  proxyStepTimings: { env: 'PROXY_STEP_TIMINGS', type: 'boolean', default: false, description: 'time every step of each proxied call into the histogram aduana_proxy_step_seconds{step} (diagnostics: two clock reads and one observation per step)' },
  ledgerCompression: {
    env: 'LEDGER_COMPRESSION',
    type: 'string',
    default: 'proxy',
    enum: ['proxy', 'all', 'off', 'true', 'false'],
    description:
      "which new ledger records store their text LZ4-compressed (~55 % less disk each, 5–12 µs more CPU each): 'proxy' proxied calls' (~4 % of a call's CPU, ~4.5 MiB of memory for the codec), 'all' decisions' and ingested events' too (a fifth to a third of an event's ingest CPU), 'off' none; 'true'/'false' mean 'all'/'off'. Compressed records are always readable",
  },
  gatewayThreads: {
    env: 'GATEWAY_THREADS',
    type: 'integer',
    default: 0,
    minimum: 0,
    maximum: 64,
    description:
      "threads that take the agents' port's connections (AGENT_PORT): the main thread and GATEWAY_THREADS − 1 request threads (~25 MiB each); 0 = the cores the process may use (its CPUs, capped by its cgroup's CPU quota). One (the main thread alone) without AGENT_PORT, and where request threads cannot judge calls: LEDGER_WRITER inline, a sidecar, REDIS_URL, PROXY_STEP_TIMINGS (docs/architecture.md, \"Threads\")",
  },
  ledgerWriter: {
    env: 'LEDGER_WRITER',
    type: 'string',
    default: 'auto',
    enum: ['auto', 'thread', 'inline'],
    description:
      "where the ledger's and the decision index's writes are made: 'thread' on a writer thread of their own (~15 µs less of the request thread's CPU a decision, ~15 µs more in all for the hand-over, ~10 MiB more memory), 'inline' on the request thread, 'auto' a thread where the process may use 2 cores or more (its CPUs, capped by its cgroup's CPU quota)",
  },
  checkpointEvery: { env: 'CHECKPOINT_EVERY', type: 'integer', default: 1000, minimum: 1, description: 'signed ledger checkpoint every N entries' },
  checkpointIntervalS: { env: 'CHECKPOINT_INTERVAL_S', type: 'integer', default: 60, minimum: 1, description: 'signed ledger checkpoint at least every T seconds (when new entries exist)' },
  ledgerRetentionDays: { env: 'LEDGER_RETENTION_DAYS', type: 'integer', default: 0, minimum: 0, maximum: 36_500, description: 'ledger entries older than this many days are pruned once a signed checkpoint covers them and they were exported (a sidecar: acknowledged by its control plane); 0 = keep every entry' },
  ledgerPruneIntervalS: { env: 'LEDGER_PRUNE_INTERVAL_S', type: 'integer', default: 3600, minimum: 1, maximum: 86_400, description: 'how often ledger retention looks for entries to prune (with LEDGER_RETENTION_DAYS > 0), seconds' },
  anchorTsaUrl: { env: 'ANCHOR_TSA_URL', type: 'string', default: '', description: "RFC 3161 time-stamp authority (HTTP) that time-stamps every ledger checkpoint of enterprise-plan tenants, in the background (empty = off). Replaces ANCHOR_URL, which is refused" },
  anchorTsaCert: { env: 'ANCHOR_TSA_CERT', type: 'string', default: '', description: "PEM file of the TSA's certificate (or its CA's): tokens must be signed by it or by a certificate it issued, when received and by verify (empty = the certificate each token carries, which must be for time-stamping)" },
  anchorRetryBaseMs: { env: 'ANCHOR_RETRY_BASE_MS', type: 'integer', default: 500, minimum: 10, description: 'first retry delay after a failed time-stamp request, ms; doubles per failure' },
  anchorRetryMaxMs: { env: 'ANCHOR_RETRY_MAX_MS', type: 'integer', default: 300_000, minimum: 10, description: 'longest retry delay of time-stamp requests, ms (a checkpoint waits for its token as long as the TSA is away)' },
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
  patMaxTtlDays: { env: 'PAT_MAX_TTL_DAYS', type: 'integer', default: 365, minimum: 1, maximum: 3650, description: 'longest lifetime POST /token, `aduana token create` and `token rotate` issue (400, or exit 2, past it); never past the expiry of the minting token or login session' },
  verifyFailuresPerMinute: { env: 'VERIFY_FAILURES_PER_MINUTE', type: 'integer', default: 30, minimum: 1, description: 'failed GET /verify calls per client address per minute (and burst) before 429' },
  sessionTtlHours: { env: 'SESSION_TTL_HOURS', type: 'integer', default: 12, minimum: 1, maximum: 720, description: 'lifetime of a login session (POST /login, the console, the identity provider)' },
  sessionPruneIntervalS: { env: 'SESSION_PRUNE_INTERVAL_S', type: 'integer', default: 3600, minimum: 1, maximum: 86_400, description: 'how often sessions that expired over a day ago are deleted, seconds' },
  passwordMinLength: { env: 'PASSWORD_MIN_LENGTH', type: 'integer', default: 12, minimum: 8, maximum: 256, description: 'shortest password a user may be given, characters' },
  passwordMaxBytes: { env: 'PASSWORD_MAX_BYTES', type: 'integer', default: 1024, minimum: 64, maximum: 65_536, description: 'longest password accepted anywhere, UTF-8 bytes (400 past it, before any hashing)' },
  passwordScryptLogN: { env: 'PASSWORD_SCRYPT_LOG_N', type: 'integer', default: 15, minimum: 10, maximum: 20, description: 'scrypt cost of new password hashes, log2 N (r 8, p 1); stored beside each hash, so raising it keeps old hashes valid' },
  loginFailuresPerAddress: { env: 'LOGIN_FAILURES_PER_ADDRESS', type: 'integer', default: 20, minimum: 1, description: 'failed logins per client source (an IPv4 address, an IPv6 /64) over all accounts within LOGIN_FAILURE_WINDOW_S before that source is refused (429); browsers with a device cookie are counted apart' },
  loginFailuresPerAccount: { env: 'LOGIN_FAILURES_PER_ACCOUNT', type: 'integer', default: 5, minimum: 1, description: 'failed logins within LOGIN_FAILURE_WINDOW_S on one account from one client source, or from one device cookie, before that source or cookie is refused (429); past as many from all sources the account is slowed down for browsers without its device cookie (LOGIN_SLOWDOWN_MAX_S), never locked' },
  loginFailureWindowS: { env: 'LOGIN_FAILURE_WINDOW_S', type: 'integer', default: 900, minimum: 1, description: 'window of the failed-login limits, seconds (Retry-After counts to its end); the counts are kept in memory' },
  loginSlowdownMaxS: { env: 'LOGIN_SLOWDOWN_MAX_S', type: 'integer', default: 60, minimum: 1, maximum: 3600, description: 'longest wait between two sign-in attempts on an account slowed down by failures (the wait starts at 1 s and doubles with each further failure; 429 with Retry-After meanwhile); browsers with the account\'s device cookie are not slowed' },
  loginHashesInFlightMax: { env: 'LOGIN_HASHES_IN_FLIGHT_MAX', type: 'integer', default: 8, minimum: 1, description: 'password logins (POST /login, the console) whose password hash is under way at once; past it 429 with Retry-After' },
  loginHashesInFlightPerAddress: { env: 'LOGIN_HASHES_IN_FLIGHT_PER_ADDRESS', type: 'integer', default: 2, minimum: 1, description: "one client source's (an IPv4 address, an IPv6 /64), or one device-cookie account's, share of LOGIN_HASHES_IN_FLIGHT_MAX (429 past it); at most LOGIN_HASHES_IN_FLIGHT_MAX" },
  loginHashesReservedForDevices: { env: 'LOGIN_HASHES_RESERVED_FOR_DEVICES', type: 'integer', default: 4, minimum: 0, description: 'of LOGIN_HASHES_IN_FLIGHT_MAX, the password checks only browsers with a valid device cookie may use, so a flood from other addresses cannot refuse their sign-in; less than LOGIN_HASHES_IN_FLIGHT_MAX' },
  loginDeviceCookieDays: { env: 'LOGIN_DEVICE_COOKIE_DAYS', type: 'integer', default: 90, minimum: 1, maximum: 3650, description: 'how long the device cookie of a successful password sign-in exempts its browser from the slow-down of its account, days' },
  loginDeviceCookieKey: { env: 'LOGIN_DEVICE_COOKIE_KEY', type: 'string', default: '', description: 'key that signs device cookies (HMAC-SHA256), 64 hexadecimal characters; set the same one at every control-plane replica. Empty = one made at the first start and kept in DATA_DIR/login-device-cookie.key. Never logged' },
  tokenRotateGraceHours: { env: 'TOKEN_ROTATE_GRACE_HOURS', type: 'integer', default: 24, minimum: 0, maximum: 720, description: '`aduana token rotate`: how long the old token keeps working beside its successor, hours' },
  oidcIssuer: { env: 'OIDC_ISSUER', type: 'string', default: '', description: 'OpenID Connect issuer URL (its discovery document is read at start); empty = identity-provider sign-in off' },
  oidcClientId: { env: 'OIDC_CLIENT_ID', type: 'string', default: '', description: 'client id registered with the identity provider' },
  oidcClientSecret: { env: 'OIDC_CLIENT_SECRET', type: 'string', default: '', description: 'client secret (empty = a public client: PKCE alone)' },
  oidcRedirectUri: { env: 'OIDC_REDIRECT_URI', type: 'string', default: '', description: 'the callback registered with the provider: https://AUTH-HOST/auth/idp/callback' },
  oidcTenant: { env: 'OIDC_TENANT', type: 'string', default: 'default', description: 'tenant in which first identity-provider logins are provisioned (as viewers)' },
  oidcAllowedDomains: { env: 'OIDC_ALLOWED_DOMAINS', type: 'string', default: '', description: 'comma-separated e-mail domains that may be provisioned (empty = any verified e-mail)' },
  oidcAllowInsecureHttp: { env: 'OIDC_ALLOW_INSECURE_HTTP', type: 'boolean', default: false, description: 'let the provider be reached over plain http (loopback tests only; never in production)' },
  oidcFlowTtlS: { env: 'OIDC_FLOW_TTL_S', type: 'integer', default: 600, minimum: 30, maximum: 3600, description: 'time a started identity-provider sign-in may take to come back, seconds' },
  oidcStartsPerMinute: { env: 'OIDC_STARTS_PER_MINUTE', type: 'integer', default: 20, minimum: 1, description: 'identity-provider sign-ins (GET /auth/idp) one client address may start per minute (and burst) before 429' },
  cookieSecure: { env: 'COOKIE_SECURE', type: 'boolean', default: false, description: 'mark console cookies Secure: set it when the authentication service is reached over TLS' },
  consoleScanLimit: { env: 'CONSOLE_SCAN_LIMIT', type: 'integer', default: 5000, minimum: 100, maximum: 100_000, description: 'newest decisions the console reads to draw its charts and filter its lists' },
  consoleCsvMaxRows: { env: 'CONSOLE_CSV_MAX_ROWS', type: 'integer', default: 100_000, minimum: 1, maximum: 1_000_000, description: 'rows one CSV export of the decisions list holds at most (and decisions it reads at most); past it the answer carries x-aduana-truncated: true' },
  requestLogKey: { env: 'REQUEST_LOG_KEY', type: 'string', default: '', description: "key of the sampled request log's records at rest (AES-256-GCM), 64 hexadecimal characters; empty = the request log cannot be enabled (503 request_log_key_missing). Never logged (docs/console.md, \"Request log\")" },
  credentialsKey: { env: 'CREDENTIALS_KEY', type: 'string', default: '', description: "key of the tenants' provider credentials at rest (AES-256-GCM), 64 hexadecimal characters; a key derived from it makes the digests their changes are chained with. Empty = no credential can be stored (503 credentials_key_missing); ADUANA_CREDENTIAL_<NAME> variables still resolve. Never logged (docs/routing.md, \"Provider credentials\")" },
  requestLogPruneIntervalS: { env: 'REQUEST_LOG_PRUNE_INTERVAL_S', type: 'integer', default: 3600, minimum: 1, maximum: 86_400, description: "how often request-log samples older than their tenant's retention_days are deleted, seconds" },
  consoleVerifiesPerHour: { env: 'CONSOLE_VERIFIES_PER_HOUR', type: 'integer', default: 6, minimum: 1, description: 'full ledger verifications the console starts per tenant per hour (and burst) before 429' },
  mcpUpstreams: { env: 'MCP_UPSTREAMS', type: 'string', default: '', description: 'JSON {name: url or {url, headers, refuse_server_requests}}: the MCP servers agents reach through /v1/mcp/{name} (headers are the sidecar\'s credentials for that server; refuse_server_requests, e.g. ["sampling", "elicitation"], the kinds of request from that server the gateway refuses instead of passing them to the agent)' },
  sidecarAgentId: { env: 'SIDECAR_AGENT_ID', type: 'string', default: '', description: "the agent a call acts as when it names none (no x-svc-agent-id) and its token is bound to none: the one agent a sidecar usually sits beside, whose SDK cannot set a header. Empty = such a call is a 400" },
  mcpAnswerLimit: { env: 'MCP_ANSWER_LIMIT', type: 'integer', default: 16 * 1024 * 1024, minimum: 1024, description: "largest JSON answer, and largest single stream event, from an MCP server, bytes (the agent gets an error past it)" },
  mcpStreamIdleS: { env: 'MCP_STREAM_IDLE_S', type: 'integer', default: 300, minimum: 1, maximum: 86_400, description: 'an MCP server stream (SSE) idle this long is ended, seconds' },
  mcpAllowedOrigins: { env: 'MCP_ALLOWED_ORIGINS', type: 'string', default: '', description: "origins (`scheme://host[:port]`, comma-separated) whose browser pages may call /v1/mcp/{name}: a request with another Origin is a 403, one without an Origin (SDKs) is not judged by it. Empty = only the gateway's own origin (an Origin naming the request's Host). Where HOST is a loopback address, a request's Host must name loopback too (docs/mcp.md, \"Browsers and DNS rebinding\")" },
  mcpSessionsMax: { env: 'MCP_SESSIONS_MAX', type: 'string', default: '', description: "MCP sessions one tenant may hold open through this gateway, per plan: `plan=n`, comma-separated, over the plan table's (community 100, professional 1000, enterprise 10000); past it the tenant's least recently used session is forgotten (docs/mcp.md, \"Sessions\")" },
  priceTable: { env: 'MODEL_PRICES_BRL', type: 'string', default: '', description: 'JSON {model: {input, output}} in BRL per 1K tokens, merged over the built-in table and MODEL_PRICES_FILE' },
  priceFile: { env: 'MODEL_PRICES_FILE', type: 'string', default: '', description: 'path of a JSON file {model: {input, output}} in BRL per 1K tokens, read at start and merged over the built-in table (MODEL_PRICES_BRL wins over it)' },
  usdBrlRate: { env: 'USD_BRL_RATE', type: 'string', default: '', description: 'BRL per US dollar: the console shows costs in USD beside BRL at this rate. Empty = BRL only' },
  heartbeatIntervalS: { env: 'HEARTBEAT_INTERVAL_S', type: 'integer', default: 30, minimum: 1, maximum: 86_400, description: 'expected heartbeat interval of an agent, s: STALE after 2 without one; each missed interval counts once in heartbeat.missed_count' },
  requireRegisteredAgents: { env: 'REQUIRE_REGISTERED_AGENTS', type: 'boolean', default: false, description: 'refuse (403, rule agent_unregistered) an agent id that was never registered, instead of registering it on first use' },
  agentsMaxPerTenant: { env: 'AGENTS_MAX_PER_TENANT', type: 'integer', default: 10_000, minimum: 1, description: 'agents a tenant may have (403, rule agent_limit, past it): each is held in memory' },
  agentFlushMs: { env: 'AGENT_FLUSH_MS', type: 'integer', default: 1000, minimum: 10, maximum: 60_000, description: "how often agents' last_seen, risk_score and heartbeat state are written to LMDB, ms (batched off the request path)" },
  telemetryRetentionDays: { env: 'TELEMETRY_RETENTION_DAYS', type: 'integer', default: 7, minimum: 1, maximum: 3650, description: 'days metric samples, logs and error events are kept (queries before that answer 400)' },
  telemetryPruneIntervalS: { env: 'TELEMETRY_PRUNE_INTERVAL_S', type: 'integer', default: 3600, minimum: 1, description: 'how often telemetry past its retention is deleted, s' },
  telemetryIngestBodyLimit: { env: 'TELEMETRY_INGEST_BODY_LIMIT', type: 'integer', default: 256 * 1024, minimum: 1024, description: 'largest POST /v1/telemetry/ingest body, bytes (413 past it)' },
  otlpEndpoint: { env: 'OTEL_EXPORTER_OTLP_ENDPOINT', type: 'string', default: '', description: 'OpenTelemetry collector base URL; logs go to /v1/logs and metrics to /v1/metrics as OTLP/HTTP JSON (empty = DISABLED)' },
  otlpHeaders: { env: 'OTEL_EXPORTER_OTLP_HEADERS', type: 'string', default: '', description: 'extra headers for the collector, `k1=v1,k2=v2` (values URL-encoded)' },
  metricsScrapeToken: { env: 'METRICS_SCRAPE_TOKEN', type: 'string', default: '', description: "the operator's Prometheus scrape credential: with it, GET /v1/telemetry/metrics shows every tenant's series (a tenant's token sees its own); at least 32 printable characters, or sha256:<hex of its SHA-256> (empty = none)" },
  sentryDsn: { env: 'SENTRY_DSN', type: 'string', default: '', description: 'DSN of a Sentry-compatible tracker that receives error events as envelopes (empty = DISABLED)' },
  telemetryQueueMax: { env: 'TELEMETRY_QUEUE_MAX', type: 'integer', default: 10_000, minimum: 1, description: 'items each forwarder holds while its provider is slow or down; past it new items are dropped and counted' },
  telemetryQueueMaxBytes: { env: 'TELEMETRY_QUEUE_MAX_BYTES', type: 'integer', default: 16 * 1024 * 1024, minimum: 64 * 1024, description: 'the same bound in bytes (a log or error counted by the characters of its text, a metrics payload by its bytes); past it new items are dropped and counted' },
  telemetryBatchMax: { env: 'TELEMETRY_BATCH_MAX', type: 'integer', default: 256, minimum: 1, description: 'items per forwarded request' },
  telemetryFlushMs: { env: 'TELEMETRY_FLUSH_MS', type: 'integer', default: 1000, minimum: 10, description: 'how often forwarders send what they hold (and metrics are collected for OTLP), ms' },
  telemetryRetryBaseMs: { env: 'TELEMETRY_RETRY_BASE_MS', type: 'integer', default: 1000, minimum: 10, description: 'first retry delay of a failed forward, ms; doubles per failure' },
  telemetryRetryMaxMs: { env: 'TELEMETRY_RETRY_MAX_MS', type: 'integer', default: 30_000, minimum: 10, description: 'longest retry delay of a failed forward, ms' },
  telemetryExportTimeoutMs: { env: 'TELEMETRY_EXPORT_TIMEOUT_MS', type: 'integer', default: 5000, minimum: 100, description: 'time allowed for one forward request, ms' },
  databaseUrl: { env: 'DATABASE_URL', type: 'string', default: '', description: 'fleet mode: PostgreSQL URL of the control plane (`aduana control`) and of the admin commands run against it; empty = the embedded LMDB store' },
  databasePoolMax: { env: 'DATABASE_POOL_MAX', type: 'integer', default: 10, minimum: 1, maximum: 1000, description: 'PostgreSQL connections one control-plane process holds' },
  databaseStatementTimeoutMs: { env: 'DATABASE_STATEMENT_TIMEOUT_MS', type: 'integer', default: 5000, minimum: 100, maximum: 600_000, description: 'longest a PostgreSQL statement may run before the server cancels it (the call fails instead of hanging), ms; migrations at start-up are exempt' },
  databaseConnectTimeoutMs: { env: 'DATABASE_CONNECT_TIMEOUT_MS', type: 'integer', default: 5000, minimum: 100, maximum: 600_000, description: 'longest a PostgreSQL connection may take to open (or to be handed out by the pool), ms' },
  databaseListenRetryMs: { env: 'DATABASE_LISTEN_RETRY_MS', type: 'integer', default: 1000, minimum: 10, maximum: 60_000, description: "delay before the change listener (LISTEN aduana_rows, aduana_bundle) reconnects after losing PostgreSQL, ms; on reconnect the in-memory mirror reloads every table" },
  controlPlaneUrl: { env: 'CONTROL_PLANE_URL', type: 'string', default: '', description: 'fleet mode: base URL of the control plane this gateway is a sidecar of (empty = embedded, not a sidecar)' },
  sidecarToken: { env: 'SIDECAR_TOKEN', type: 'string', default: '', description: 'fleet mode: the sidecar token (`adu_sct_…`, from `aduana sidecar-token create`) a sidecar presents to the control plane' },
  redisUrl: { env: 'REDIS_URL', type: 'string', default: '', description: 'fleet mode: Redis URL; when set, rate limits and budgets are counted tenant-wide across sidecars (empty = per process)' },
  fleetBundleWaitS: { env: 'FLEET_BUNDLE_WAIT_S', type: 'integer', default: 30, minimum: 0, maximum: 60, description: 'fleet mode: how long a sidecar asks the control plane to hold a bundle request open when nothing changed (the long-poll), seconds' },
  fleetRetryBaseMs: { env: 'FLEET_RETRY_BASE_MS', type: 'integer', default: 500, minimum: 10, description: 'fleet mode: first wait before a sidecar retries a failed bundle request, ms (doubled per failure, with jitter)' },
  fleetRetryMaxMs: { env: 'FLEET_RETRY_MAX_MS', type: 'integer', default: 30000, minimum: 10, description: 'fleet mode: longest wait between a sidecar\'s bundle retries, ms' },
  redisCommandTimeoutMs: { env: 'REDIS_COMMAND_TIMEOUT_MS', type: 'integer', default: 250, minimum: 10, maximum: 60_000, description: 'fleet mode: a Redis command not answered within this falls back to the local limits, ms' },
  redisConnectTimeoutMs: { env: 'REDIS_CONNECT_TIMEOUT_MS', type: 'integer', default: 1000, minimum: 10, maximum: 60_000, description: 'fleet mode: time allowed to connect to Redis before the attempt is retried (limits are local meanwhile), ms' },
  redisReconnectMaxMs: { env: 'REDIS_RECONNECT_MAX_MS', type: 'integer', default: 2000, minimum: 50, maximum: 60_000, description: 'fleet mode: longest pause between reconnection attempts while Redis is unreachable, ms' },
  redisSpendSyncMs: { env: 'REDIS_SPEND_SYNC_MS', type: 'integer', default: 1000, minimum: 50, maximum: 60_000, description: "fleet mode: how often active tenants' spend totals are read back from Redis (spend made at other gateways is seen within this), ms" },
  shipBatchMax: { env: 'SHIP_BATCH_MAX', type: 'integer', default: 5000, minimum: 1, maximum: 10_000, description: 'fleet mode: ledger entries a sidecar ships to its control plane in one batch' },
  shipBatchBytes: { env: 'SHIP_BATCH_BYTES', type: 'integer', default: 8 * 1024 * 1024, minimum: 64 * 1024, description: 'fleet mode: a shipped ledger batch larger than this, serialised, is halved until it fits (keep it under the control plane\'s FLEET_LEDGER_BODY_LIMIT), bytes' },
  shipIntervalMs: { env: 'SHIP_INTERVAL_MS', type: 'integer', default: 1000, minimum: 10, description: 'fleet mode: a sidecar looks for unshipped ledger entries at least this often, ms (appends also wake it)' },
  shipBackoffBaseMs: { env: 'SHIP_BACKOFF_BASE_MS', type: 'integer', default: 250, minimum: 1, description: 'fleet mode: first retry delay after a failed ledger batch, ms (doubles per failure, with jitter)' },
  shipBackoffMaxMs: { env: 'SHIP_BACKOFF_MAX_MS', type: 'integer', default: 30_000, minimum: 1, description: 'fleet mode: longest retry delay of the ledger shipper, ms' },
  shipLingerMs: { env: 'SHIP_LINGER_MS', type: 'integer', default: 1000, minimum: 0, maximum: 60_000, description: 'fleet mode: how long a ledger append waits for others to join its shipped batch, ms' },
  shipTimeoutMs: { env: 'SHIP_TIMEOUT_MS', type: 'integer', default: 10_000, minimum: 100, description: 'fleet mode: time allowed for one ledger batch to be acknowledged, ms' },
  fleetLedgerBodyLimit: { env: 'FLEET_LEDGER_BODY_LIMIT', type: 'integer', default: 16 * 1024 * 1024, minimum: 64 * 1024, description: 'control plane: largest POST /v1/fleet/ledger body, bytes (413 past it)' },
  fleetLedgerBatchMax: { env: 'FLEET_LEDGER_BATCH_MAX', type: 'integer', default: 10_000, minimum: 1, maximum: 100_000, description: 'control plane: most entries (and most checkpoints) in one shipped ledger batch (413 past it)' },
  fleetAgentReportMs: { env: 'FLEET_AGENT_REPORT_MS', type: 'integer', default: 5000, minimum: 50, maximum: 3_600_000, description: "fleet mode: how often a sidecar reports the agents it saw (last_seen, heartbeats, first-use registrations) to its control plane, ms" },
  fleetAgentReportMax: { env: 'FLEET_AGENT_REPORT_MAX', type: 'integer', default: 1000, minimum: 1, maximum: 10_000, description: 'fleet mode: most agents in one agent report; a sidecar sends more in several, the control plane refuses more (413)' },
  fleetAgentReportBodyLimit: { env: 'FLEET_AGENT_REPORT_BODY_LIMIT', type: 'integer', default: 8 * 1024 * 1024, minimum: 64 * 1024, description: 'control plane: largest POST /v1/fleet/agents body, bytes (413 past it)' },
  fleetTelemetryShipMs: { env: 'FLEET_TELEMETRY_SHIP_MS', type: 'integer', default: 1000, minimum: 50, maximum: 3_600_000, description: 'fleet mode: how often a sidecar ships its telemetry (metric samples, logs, error events) to its control plane, ms' },
  fleetTelemetryBatchMax: { env: 'FLEET_TELEMETRY_BATCH_MAX', type: 'integer', default: 1000, minimum: 1, maximum: 10_000, description: 'fleet mode: most items in one telemetry batch; a sidecar sends more in several, the control plane refuses more (413)' },
  fleetTelemetryQueueMax: { env: 'FLEET_TELEMETRY_QUEUE_MAX', type: 'integer', default: 100_000, minimum: 1, description: 'fleet mode: telemetry items a sidecar holds while its control plane is away; past it new items are dropped and counted (/health)' },
  fleetTelemetryQueueMaxBytes: { env: 'FLEET_TELEMETRY_QUEUE_MAX_BYTES', type: 'integer', default: 64 * 1024 * 1024, minimum: 64 * 1024, description: 'fleet mode: bytes of telemetry (as shipped JSON) a sidecar holds while its control plane is away; past it new items are dropped and counted (/health)' },
  fleetTelemetryBodyLimit: { env: 'FLEET_TELEMETRY_BODY_LIMIT', type: 'integer', default: 16 * 1024 * 1024, minimum: 64 * 1024, description: 'fleet mode: largest POST /v1/fleet/telemetry body, bytes (a sidecar cuts its batches below it; the control plane answers 413 past it)' },
  fleetBundleResolutionsWindowS: { env: 'FLEET_BUNDLE_RESOLUTIONS_WINDOW_S', type: 'integer', default: 86_400, minimum: 60, maximum: 604_800, description: "control plane: resolutions of held decisions made within this are carried in bundles to the sidecar that made the decision, s (a sidecar away longer misses them)" },
  fleetBundleResolutionsMax: { env: 'FLEET_BUNDLE_RESOLUTIONS_MAX', type: 'integer', default: 500, minimum: 1, maximum: 10_000, description: 'control plane: most resolutions of held decisions a bundle carries per tenant (the newest)' },
  quietBootstrap: { env: 'ADUANA_QUIET_BOOTSTRAP', type: 'boolean', default: false, description: 'do not print bootstrap secrets to stdout (they are still written to DATA_DIR)' },
  bootstrapTenant: { env: 'BOOTSTRAP_TENANT', type: 'string', default: 'default', description: "the tenant a first start creates, and BOOTSTRAP_TOKEN's tenant (made on any start when missing)" },
  bootstrapPlan: { env: 'BOOTSTRAP_PLAN', type: 'string', default: 'enterprise', enum: ['community', 'professional', 'enterprise'], description: "BOOTSTRAP_TENANT's plan when it is created (later: `aduana tenant set-plan`)" },
  bootstrapToken: { env: 'BOOTSTRAP_TOKEN', type: 'string', default: '', description: "a PAT the operator generated (`adu_pat_…`, e.g. from a Kubernetes Secret): stored (its hash) in BOOTSTRAP_TENANT on any start that does not know it, and no admin token is made or printed; never logged (docs/sidecar.md). Empty = the first start prints an admin token" },
  bootstrapTokenRole: { env: 'BOOTSTRAP_TOKEN_ROLE', type: 'string', default: 'operator', enum: ['admin', 'operator', 'viewer'], description: "BOOTSTRAP_TOKEN's role" },
  bootstrapTokenAgent: { env: 'BOOTSTRAP_TOKEN_AGENT', type: 'string', default: '', description: 'the agent BOOTSTRAP_TOKEN is bound to (its calls then name no agent); empty = unbound' },
  cliUrl: { env: 'ADUANA_URL', type: 'string', default: '', description: "`aduana routes`: the gateway API it calls (empty = http://HOST:GATEWAY_PORT, 127.0.0.1 when HOST is every address)" },
  cliToken: { env: 'ADUANA_TOKEN', type: 'string', default: '', description: "`aduana routes`: the PAT it calls the API with; its tenant's routes are the ones read or changed (an admin token to change them). Never logged" },
} as const;

export type GatewayConfig = ConfigValues<typeof GATEWAY_CONFIG>;

export function loadGatewayConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: Partial<Record<keyof typeof GATEWAY_CONFIG, string | number | boolean>> = {},
): GatewayConfig {
  // The proxy variables' lower-case forms win, as in curl and undici (curl reads only the lower-case http_proxy).
  const lowerCase = { httpsProxy: env['https_proxy'] || undefined, httpProxy: env['http_proxy'] || undefined, noProxy: env['no_proxy'] || undefined };
  const config = loadConfig(GATEWAY_CONFIG, env, { ...lowerCase, ...overrides });
  if (config.controlPlaneUrl && !config.sidecarToken) throw new Error('SIDECAR_TOKEN: required when CONTROL_PLANE_URL is set (a sidecar presents it to its control plane; create one with `aduana sidecar-token create`)');
  if (config.patTtlDays > config.patMaxTtlDays) throw new Error(`PAT_TTL_DAYS: ${config.patTtlDays} is longer than PAT_MAX_TTL_DAYS (${config.patMaxTtlDays})`);
  if (config.loginHashesInFlightPerAddress > config.loginHashesInFlightMax) throw new Error(`LOGIN_HASHES_IN_FLIGHT_PER_ADDRESS: ${config.loginHashesInFlightPerAddress} is more than LOGIN_HASHES_IN_FLIGHT_MAX (${config.loginHashesInFlightMax})`);
  if (config.loginHashesReservedForDevices >= config.loginHashesInFlightMax) throw new Error(`LOGIN_HASHES_RESERVED_FOR_DEVICES: ${config.loginHashesReservedForDevices} leaves no password check of LOGIN_HASHES_IN_FLIGHT_MAX (${config.loginHashesInFlightMax}) to browsers without a device cookie`);
  checkHexKey(config.loginDeviceCookieKey, 'LOGIN_DEVICE_COOKIE_KEY');
  if (config.redisUrl !== '') parseRedisUrl(config.redisUrl);
  if (env['ANCHOR_URL']) throw new Error('ANCHOR_URL: removed; checkpoints are time-stamped by an RFC 3161 authority instead, set ANCHOR_TSA_URL (docs/ledger.md, "Anchoring")');
  ScrapeCredential.fromSetting(config.metricsScrapeToken);
  parseMcpUpstreams(config.mcpUpstreams);
  parseAllowedOrigins(config.mcpAllowedOrigins);
  parseMcpSessionShares(config.mcpSessionsMax);
  StoredPrompts.parse(config.openaiPrompts);
  if (config.sidecarAgentId && !isValidLedgerName(config.sidecarAgentId)) throw new Error('SIDECAR_AGENT_ID: no control characters, at most 256 bytes');
  proxyUrl(lowerCase.httpsProxy ? 'https_proxy' : 'HTTPS_PROXY', config.httpsProxy);
  proxyUrl(lowerCase.httpProxy ? 'http_proxy' : 'HTTP_PROXY', config.httpProxy);
  checkBootstrap(config);
  checkHexKey(config.requestLogKey, 'REQUEST_LOG_KEY');
  checkHexKey(config.credentialsKey, 'CREDENTIALS_KEY');
  if (config.upstreamApiKeyMode === 'replace' && !config.upstreamApiKey) throw new Error('UPSTREAM_API_KEY_MODE: replace needs UPSTREAM_API_KEY (the key that replaces the caller\'s)');
  return config;
}

/** A key setting: empty, or 64 hexadecimal characters. Checked before the data dir is opened; the key is never part of the message. */
function checkHexKey(value: string, env: string): void {
  if (value !== '' && !/^[0-9a-fA-F]{64}$/.test(value)) throw new Error(`${env}: must be 64 hexadecimal characters (32 bytes)`);
}

/** BOOTSTRAP_*: a bad value stops start-up naming the setting; the token's value is never part of the message. */
function checkBootstrap(config: GatewayConfig): void {
  if (!isValidTenantId(config.bootstrapTenant)) throw new Error('BOOTSTRAP_TENANT: lower-case letters, digits, - and _, at most 63, starting with a letter or digit');
  if (config.bootstrapTokenAgent && !isValidLedgerName(config.bootstrapTokenAgent)) throw new Error('BOOTSTRAP_TOKEN_AGENT: no control characters, at most 256 bytes');
  if (!config.bootstrapToken) return;
  if (config.controlPlaneUrl) throw new Error("BOOTSTRAP_TOKEN: a sidecar of a control plane (CONTROL_PLANE_URL) takes its tokens from it; create the token there");
  if (!isWellFormedToken(config.bootstrapToken, 'pat')) throw new Error('BOOTSTRAP_TOKEN: not an aduana PAT (adu_pat_, 30 letters and digits and a 6-character checksum); generate one as docs/sidecar.md shows');
}
