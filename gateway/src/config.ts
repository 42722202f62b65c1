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
  ledgerCompression: { env: 'LEDGER_COMPRESSION', type: 'boolean', default: false, description: 'store new ledger records LZ4-compressed (~60 % less disk per entry, ~30 µs more event-loop CPU per entry; compressed records are always readable)' },
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
  sessionTtlHours: { env: 'SESSION_TTL_HOURS', type: 'integer', default: 12, minimum: 1, maximum: 720, description: 'lifetime of a login session (POST /login, the console, the identity provider)' },
  passwordMinLength: { env: 'PASSWORD_MIN_LENGTH', type: 'integer', default: 12, minimum: 8, maximum: 256, description: 'shortest password a user may be given, characters' },
  passwordMaxBytes: { env: 'PASSWORD_MAX_BYTES', type: 'integer', default: 1024, minimum: 64, maximum: 65_536, description: 'longest password accepted anywhere, UTF-8 bytes (400 past it, before any hashing)' },
  passwordScryptLogN: { env: 'PASSWORD_SCRYPT_LOG_N', type: 'integer', default: 15, minimum: 10, maximum: 20, description: 'scrypt cost of new password hashes, log2 N (r 8, p 1); stored beside each hash, so raising it keeps old hashes valid' },
  loginFailuresPerAddress: { env: 'LOGIN_FAILURES_PER_ADDRESS', type: 'integer', default: 20, minimum: 1, description: 'failed logins per client address within LOGIN_FAILURE_WINDOW_S before 429 (kept in LMDB)' },
  loginFailuresPerAccount: { env: 'LOGIN_FAILURES_PER_ACCOUNT', type: 'integer', default: 5, minimum: 1, description: 'failed logins per e-mail address within LOGIN_FAILURE_WINDOW_S before 429 (kept in LMDB)' },
  loginFailureWindowS: { env: 'LOGIN_FAILURE_WINDOW_S', type: 'integer', default: 900, minimum: 1, description: 'window of the failed-login limits, seconds (Retry-After counts to its end)' },
  tokenRotateGraceHours: { env: 'TOKEN_ROTATE_GRACE_HOURS', type: 'integer', default: 24, minimum: 0, maximum: 720, description: '`aduana token rotate`: how long the old token keeps working beside its successor, hours' },
  oidcIssuer: { env: 'OIDC_ISSUER', type: 'string', default: '', description: 'OpenID Connect issuer URL (its discovery document is read at start); empty = identity-provider sign-in off' },
  oidcClientId: { env: 'OIDC_CLIENT_ID', type: 'string', default: '', description: 'client id registered with the identity provider' },
  oidcClientSecret: { env: 'OIDC_CLIENT_SECRET', type: 'string', default: '', description: 'client secret (empty = a public client: PKCE alone)' },
  oidcRedirectUri: { env: 'OIDC_REDIRECT_URI', type: 'string', default: '', description: 'the callback registered with the provider: https://AUTH-HOST/auth/idp/callback' },
  oidcTenant: { env: 'OIDC_TENANT', type: 'string', default: 'default', description: 'tenant in which first identity-provider logins are provisioned (as viewers)' },
  oidcAllowedDomains: { env: 'OIDC_ALLOWED_DOMAINS', type: 'string', default: '', description: 'comma-separated e-mail domains that may be provisioned (empty = any verified e-mail)' },
  oidcAllowInsecureHttp: { env: 'OIDC_ALLOW_INSECURE_HTTP', type: 'boolean', default: false, description: 'let the provider be reached over plain http (loopback tests only; never in production)' },
  oidcFlowTtlS: { env: 'OIDC_FLOW_TTL_S', type: 'integer', default: 600, minimum: 30, maximum: 3600, description: 'time a started identity-provider sign-in may take to come back, seconds' },
  cookieSecure: { env: 'COOKIE_SECURE', type: 'boolean', default: false, description: 'mark console cookies Secure: set it when the authentication service is reached over TLS' },
  consoleScanLimit: { env: 'CONSOLE_SCAN_LIMIT', type: 'integer', default: 5000, minimum: 100, maximum: 100_000, description: 'newest decisions the console reads to draw its charts and filter its lists' },
  priceTable: { env: 'MODEL_PRICES_BRL', type: 'string', default: '', description: 'JSON {model: {input, output}} in BRL per 1K tokens, merged over the built-in table' },
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
