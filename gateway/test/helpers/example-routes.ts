/** The routes of the example (docs/routing.md shows the same), as YAML and as the object it parses to. */
export const EXAMPLE_ROUTES_YAML = `targets:
  openai-main:  { provider: openai,    base_url: https://api.openai.com/v1, credential: openai-prod }
  openai-spare: { provider: openai,    base_url: https://api.openai.com/v1, credentials: [openai-k2, openai-k3] }
  azure-eu:     { provider: azure,     base_url: https://x.openai.azure.com, credential: azure-eu, deployments: { gpt-4o: gpt4o-eu } }
  local:        { provider: openai,    base_url: http://vllm:8000/v1 }
models:
  gpt-4o: { strategy: fallback, targets: [openai-main, azure-eu, { target: openai-spare }] }
  fast:   { strategy: weighted, targets: [{ target: openai-main, model: gpt-4.1-mini, weight: 3 }, { target: local, model: qwen3-8b, weight: 1 }] }
retry:   { attempts: 2, on: [429, 500, 502, 503, 504, connect, timeout], backoff_ms: { base: 200, max: 5000 }, respect_retry_after_s: 30 }
timeouts_ms: { connect: 2000, first_byte: 60000, idle_stream: 60000 }
breaker: { consecutive_failures: 5, open_s: 30 }
`;

/** The credential names the example uses. */
export const EXAMPLE_CREDENTIALS: ReadonlySet<string> = new Set(['openai-prod', 'openai-k2', 'openai-k3', 'azure-eu']);

/** Mutable, so each case can change a fresh copy. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the cases reach into every corner of the routes' JSON
export type Json = any;

export function exampleRoutes(): Json {
  return {
    targets: {
      'openai-main': { provider: 'openai', base_url: 'https://api.openai.com/v1', credential: 'openai-prod' },
      'openai-spare': { provider: 'openai', base_url: 'https://api.openai.com/v1', credentials: ['openai-k2', 'openai-k3'] },
      'azure-eu': { provider: 'azure', base_url: 'https://x.openai.azure.com', credential: 'azure-eu', deployments: { 'gpt-4o': 'gpt4o-eu' } },
      local: { provider: 'openai', base_url: 'http://vllm:8000/v1' },
    },
    models: {
      'gpt-4o': { strategy: 'fallback', targets: ['openai-main', 'azure-eu', { target: 'openai-spare' }] },
      fast: {
        strategy: 'weighted',
        targets: [
          { target: 'openai-main', model: 'gpt-4.1-mini', weight: 3 },
          { target: 'local', model: 'qwen3-8b', weight: 1 },
        ],
      },
    },
    retry: { attempts: 2, on: [429, 500, 502, 503, 504, 'connect', 'timeout'], backoff_ms: { base: 200, max: 5000 }, respect_retry_after_s: 30 },
    timeouts_ms: { connect: 2000, first_byte: 60000, idle_stream: 60000 },
    breaker: { consecutive_failures: 5, open_s: 30 },
  };
}

/** The example without any credential name: what a gateway whose credential store knows none takes. */
export function exampleRoutesWithoutCredentials(): Json {
  const spec = exampleRoutes();
  for (const target of Object.values<Json>(spec.targets)) {
    delete target.credential;
    delete target.credentials;
  }
  return spec;
}

/** The example YAML without its credential names. */
export const EXAMPLE_ROUTES_YAML_WITHOUT_CREDENTIALS = EXAMPLE_ROUTES_YAML.replace(/, credentials?: (\[[^\]]*\]|[\w-]+)/g, '');

export interface InvalidRoutes {
  readonly what: string;
  /** Changes a copy of the example (either of them) into routes that must be refused. */
  readonly change: (spec: Json) => void;
  /** The path the refusal names, and what it says. */
  readonly path: string;
  readonly message: RegExp;
}

const targets = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, { provider: 'openai', base_url: 'https://x.example' }]));

/** Routes that must be refused whole, each naming its field: the rules of docs/routing.md, "Validation", one by one. */
export const INVALID_ROUTES: readonly InvalidRoutes[] = [
  { what: 'an unknown target in a model route', change: (s) => (s.models['gpt-4o'].targets[1] = 'azure-us'), path: 'models.gpt-4o.targets.1', message: /unknown target "azure-us"/ },
  { what: 'an unknown target as an object', change: (s) => (s.models.fast.targets[1].target = 'nowhere'), path: 'models.fast.targets.1', message: /unknown target "nowhere"/ },
  { what: "a name only Object's prototype has", change: (s) => (s.models['gpt-4o'].targets[0] = 'constructor'), path: 'models.gpt-4o.targets.0', message: /unknown target "constructor"/ },
  { what: 'an unknown credential', change: (s) => (s.targets['openai-main'].credential = 'ghost'), path: 'targets.openai-main.credential', message: /unknown credential "ghost"/ },
  { what: 'an unknown credential in a rotation', change: (s) => (s.targets['openai-spare'].credentials = ['ghost']), path: 'targets.openai-spare.credentials.0', message: /unknown credential "ghost"/ },
  { what: 'credential and credentials together', change: (s) => Object.assign(s.targets.local, { credential: 'openai-prod', credentials: ['openai-k2'] }), path: 'targets.local', message: /credential or credentials, not both/ },
  { what: 'a model named as a target', change: (s) => s.models['gpt-4o'].targets.push('fast'), path: 'models.gpt-4o.targets.3', message: /"fast" is a model, not a target/ },
  { what: 'a model routed to itself', change: (s) => (s.models.fast.targets[0].target = 'fast'), path: 'models.fast.targets.0', message: /"fast" is a model/ },
  {
    what: 'a name that is both a target and a model',
    change: (s) => {
      s.targets['gpt-4o'] = { provider: 'openai', base_url: 'https://api.openai.com/v1' };
      s.models.fast.targets[1].target = 'gpt-4o';
    },
    path: 'models.fast.targets.1',
    message: /"gpt-4o" is both a target and a model/,
  },
  { what: 'a weight of 0', change: (s) => (s.models.fast.targets[0].weight = 0), path: 'models.fast.targets.0.weight', message: /must be > 0/ },
  { what: 'a negative weight', change: (s) => (s.models.fast.targets[1].weight = -1), path: 'models.fast.targets.1.weight', message: /must be > 0/ },
  { what: 'a weight on a fallback route', change: (s) => (s.models['gpt-4o'].targets[2].weight = 2), path: 'models.gpt-4o.targets.2.weight', message: /weights are for weighted routes/ },
  { what: 'a model route without targets', change: (s) => (s.models['gpt-4o'].targets = []), path: 'models.gpt-4o.targets', message: /must not be empty/ },
  { what: 'a model route without a targets field', change: (s) => delete s.models.fast.targets, path: 'models.fast', message: /missing required field "targets"/ },
  { what: 'a target listed twice', change: (s) => s.models['gpt-4o'].targets.push('openai-main'), path: 'models.gpt-4o.targets.3', message: /target "openai-main" is listed twice/ },
  { what: 'deployments on an openai target', change: (s) => (s.targets.local.deployments = { 'gpt-4o': 'x' }), path: 'targets.local.deployments', message: /only azure targets have deployments \(this one is openai\)/ },
  { what: 'an unknown provider', change: (s) => (s.targets.local.provider = 'cohere'), path: 'targets.local.provider', message: /must be one of openai, azure, anthropic, gemini/ },
  { what: 'a base_url that is not http(s)', change: (s) => (s.targets.local.base_url = 'ftp://vllm/v1'), path: 'targets.local.base_url', message: /absolute http or https URL/ },
  { what: 'a relative base_url', change: (s) => (s.targets.local.base_url = 'vllm:8000/v1'), path: 'targets.local.base_url', message: /absolute http or https URL/ },
  { what: 'a base_url with user:password@', change: (s) => (s.targets.local.base_url = 'https://me:sk-secret@vllm/v1'), path: 'targets.local.base_url', message: /must not carry credentials/ },
  { what: 'a base_url with an empty user@', change: (s) => (s.targets.local.base_url = 'https://@vllm/v1'), path: 'targets.local.base_url', message: /must not carry credentials/ },
  { what: 'a base_url with a query', change: (s) => (s.targets.local.base_url = 'https://vllm/v1?key=sk-secret'), path: 'targets.local.base_url', message: /must not have a query/ },
  { what: 'a base_url with an empty query', change: (s) => (s.targets.local.base_url = 'https://vllm/v1?'), path: 'targets.local.base_url', message: /must not have a query/ },
  { what: 'a base_url with a fragment', change: (s) => (s.targets.local.base_url = 'https://vllm/v1#x'), path: 'targets.local.base_url', message: /must not have a fragment/ },
  { what: 'a base_url with a space', change: (s) => (s.targets.local.base_url = 'https://vllm/v 1'), path: 'targets.local.base_url', message: /spaces or control characters/ },
  { what: 'a base_url that does not parse', change: (s) => (s.targets.local.base_url = 'http://[::1/v1'), path: 'targets.local.base_url', message: /absolute http or https URL/ },
  { what: 'an empty base_url', change: (s) => (s.targets.local.base_url = ''), path: 'targets.local.base_url', message: /absolute http or https URL/ },
  { what: 'retry attempts below 0', change: (s) => (s.retry.attempts = -1), path: 'retry.attempts', message: /must be >= 0/ },
  { what: 'retry attempts above 10', change: (s) => (s.retry.attempts = 11), path: 'retry.attempts', message: /must be <= 10/ },
  { what: 'retry attempts not whole', change: (s) => (s.retry.attempts = 1.5), path: 'retry.attempts', message: /must be integer/ },
  { what: 'a retry condition that is not one', change: (s) => s.retry.on.push('sometimes'), path: 'retry.on.7', message: /must be one of connect, timeout/ },
  { what: 'a retry status that is not an error', change: (s) => (s.retry.on = [200]), path: 'retry.on.0', message: /must be >= 400/ },
  { what: 'a retry condition twice', change: (s) => s.retry.on.push(429), path: 'retry.on', message: /duplicate items/ },
  { what: 'a back-off base of 0', change: (s) => (s.retry.backoff_ms.base = 0), path: 'retry.backoff_ms.base', message: /must be >= 1/ },
  { what: 'a back-off max of 0', change: (s) => (s.retry.backoff_ms.max = 0), path: 'retry.backoff_ms.max', message: /must be >= 1/ },
  { what: 'a back-off base above its max', change: (s) => (s.retry.backoff_ms = { base: 6000, max: 5000 }), path: 'retry.backoff_ms.base', message: /base \(6000\) is more than max \(5000\)/ },
  { what: 'a back-off base above the default max', change: (s) => (s.retry.backoff_ms = { base: 6000 }), path: 'retry.backoff_ms.base', message: /base \(6000\) is more than max \(5000, the default\)/ },
  { what: 'a back-off max below the default base', change: (s) => (s.retry.backoff_ms = { max: 100 }), path: 'retry.backoff_ms.max', message: /base \(200, the default\) is more than max \(100\)/ },
  { what: 'a Retry-After wait past the cap', change: (s) => (s.retry.respect_retry_after_s = 601), path: 'retry.respect_retry_after_s', message: /must be <= 600/ },
  { what: 'a connect timeout of 0', change: (s) => (s.timeouts_ms.connect = 0), path: 'timeouts_ms.connect', message: /must be >= 1/ },
  { what: 'a first-byte timeout past the cap', change: (s) => (s.timeouts_ms.first_byte = 600_001), path: 'timeouts_ms.first_byte', message: /must be <= 600000/ },
  { what: 'an idle-stream timeout not whole', change: (s) => (s.timeouts_ms.idle_stream = 1.5), path: 'timeouts_ms.idle_stream', message: /must be integer/ },
  { what: 'a breaker of 0 failures', change: (s) => (s.breaker.consecutive_failures = 0), path: 'breaker.consecutive_failures', message: /must be >= 1/ },
  { what: 'a breaker open 0 s', change: (s) => (s.breaker.open_s = 0), path: 'breaker.open_s', message: /must be >= 1/ },
  { what: 'more than 64 targets', change: (s) => (s.targets = { ...s.targets, ...targets(61) }), path: 'targets', message: /at most 64 targets$/ },
  { what: 'more than 256 models', change: (s) => (s.models = Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`m${i}`, { strategy: 'fallback', targets: ['local'] }]))), path: 'models', message: /at most 256 models$/ },
  { what: 'more than 16 targets in a model route', change: (s) => (s.models.fast.targets = Array.from({ length: 17 }, () => 'local')), path: 'models.fast.targets', message: /at most 16 targets$/ },
  { what: 'a target name with a space', change: (s) => (s.targets['open ai'] = s.targets.local), path: 'targets.open ai', message: /must be a name: a letter or digit/ },
  { what: 'a target name starting with a dash', change: (s) => (s.targets['-x'] = s.targets.local), path: 'targets.-x', message: /must be a name/ },
  { what: 'a target name of 129 characters', change: (s) => (s.targets[`a${'b'.repeat(128)}`] = s.targets.local), path: `targets.a${'b'.repeat(128)}`, message: /must be a name/ },
  { what: 'a model name with a space', change: (s) => (s.models['gpt 4o'] = s.models.fast), path: 'models.gpt 4o', message: /must be a model name/ },
  { what: 'a credential name with a slash', change: (s) => (s.targets.local.credential = 'a/b'), path: 'targets.local.credential', message: /must be a name/ },
  { what: 'an unknown field at the top', change: (s) => (s.fallbacks = {}), path: '', message: /unknown field "fallbacks"/ },
  { what: 'an unknown field in a target', change: (s) => (s.targets.local.api_key = 'sk-secret'), path: 'targets.local', message: /unknown field "api_key"/ },
  { what: 'an unknown field in a model route', change: (s) => (s.models.fast.sticky = true), path: 'models.fast', message: /unknown field "sticky"/ },
  { what: 'an unknown field in a model target', change: (s) => (s.models.fast.targets[0].priority = 1), path: 'models.fast.targets.0', message: /unknown field "priority"/ },
  { what: 'an unknown field in retry', change: (s) => (s.retry.jitter = true), path: 'retry', message: /unknown field "jitter"/ },
  { what: 'an unknown strategy', change: (s) => (s.models.fast.strategy = 'round-robin'), path: 'models.fast.strategy', message: /must be one of fallback, weighted/ },
  { what: 'an empty credential rotation', change: (s) => (s.targets.local.credentials = []), path: 'targets.local.credentials', message: /must not be empty/ },
  { what: 'more than 16 credentials in a rotation', change: (s) => (s.targets.local.credentials = Array.from({ length: 17 }, (_, i) => `k${i}`)), path: 'targets.local.credentials', message: /at most 16 credentials$/ },
  { what: 'no targets at all', change: (s) => (s.targets = {}), path: 'targets', message: /at least one target; to remove the tenant's routes, DELETE \/v1\/routes/ },
];
