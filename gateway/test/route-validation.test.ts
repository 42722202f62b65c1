import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GatewayError } from '../src/errors.js';
import { baseUrlProblem, routeProblem, validateRoutes, type CredentialNames } from '../src/proxy/routing/route-validation.js';
import { EXAMPLE_CREDENTIALS, EXAMPLE_ROUTES_YAML, EXAMPLE_ROUTES_YAML_WITHOUT_CREDENTIALS, exampleRoutes, exampleRoutesWithoutCredentials, INVALID_ROUTES } from './helpers/example-routes.js';

const known: CredentialNames = (_tenant, name) => EXAMPLE_CREDENTIALS.has(name);
const none: CredentialNames = () => false;

describe('route validation: what is taken', () => {
  it("the issue's example, as YAML and as JSON, when the tenant has its credentials", () => {
    expect(parse(EXAMPLE_ROUTES_YAML)).toEqual(exampleRoutes());
    expect(routeProblem(parse(EXAMPLE_ROUTES_YAML), 'acme', known)).toBeNull();
    expect(validateRoutes(exampleRoutes(), 'acme', known)).toEqual(exampleRoutes());
  });

  it('the example without credential names, whatever the credential store knows', () => {
    expect(parse(EXAMPLE_ROUTES_YAML_WITHOUT_CREDENTIALS)).toEqual(exampleRoutesWithoutCredentials());
    expect(routeProblem(exampleRoutesWithoutCredentials(), 'acme', none)).toBeNull();
  });

  it('credential names are looked up in the tenant of the change', () => {
    const asked: [string, string][] = [];
    routeProblem(exampleRoutes(), 'acme', (tenant, name) => (asked.push([tenant, name]), true));
    expect(asked).toEqual([
      ['acme', 'openai-prod'],
      ['acme', 'openai-k2'],
      ['acme', 'openai-k3'],
      ['acme', 'azure-eu'],
    ]);
  });

  it('one target and nothing else; every optional part may be left out or empty', () => {
    expect(routeProblem({ targets: { a: { provider: 'anthropic', base_url: 'https://api.anthropic.com' } } }, 't', none)).toBeNull();
    expect(routeProblem({ targets: { a: { provider: 'gemini', base_url: 'https://g.example' } }, models: {}, retry: {}, timeouts_ms: {}, breaker: {} }, 't', none)).toBeNull();
    expect(routeProblem({ targets: { a: { provider: 'openai', base_url: 'https://x.example' } }, retry: { attempts: 0, on: [], respect_retry_after_s: 0 } }, 't', none)).toBeNull();
  });

  it('openai and azure targets share a route (one wire family), and so do OpenAI-compatible servers', () => {
    expect(routeProblem(exampleRoutesWithoutCredentials(), 't', none)).toBeNull();
    const spec = exampleRoutesWithoutCredentials();
    spec.models.fast.targets.push({ target: 'azure-eu', weight: 0.5 });
    expect(routeProblem(spec, 't', none)).toBeNull();
  });

  it('model names take a slash, as OpenAI-compatible servers name their models; one target may serve several models', () => {
    const spec = exampleRoutesWithoutCredentials();
    spec.models['Qwen/Qwen3-8B'] = { strategy: 'weighted', targets: [{ target: 'local', model: 'Qwen/Qwen3-8B' }, { target: 'local', model: 'Qwen/Qwen3-8B-AWQ', weight: 2 }] };
    expect(routeProblem(spec, 't', none)).toBeNull();
  });

  it('names at their limits: 128 characters, and 64 targets, 256 models, 16 targets a route', () => {
    const name = `a${'b'.repeat(127)}`;
    const targets = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [i === 0 ? name : `t${i}`, { provider: 'openai', base_url: 'https://x.example' }]));
    const models = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`m${i}`, { strategy: 'fallback', targets: Array.from({ length: 16 }, (_, j) => (j === 0 ? name : `t${j}`)) }]));
    expect(routeProblem({ targets, models }, 't', none)).toBeNull();
  });

  it('the bounds themselves: 10 attempts, 600000 ms, a base equal to its max', () => {
    const spec = exampleRoutesWithoutCredentials();
    spec.retry = { attempts: 10, backoff_ms: { base: 600_000, max: 600_000 }, respect_retry_after_s: 600 };
    spec.timeouts_ms = { connect: 1, first_byte: 600_000, idle_stream: 600_000 };
    spec.breaker = { consecutive_failures: 1000, open_s: 3600 };
    expect(routeProblem(spec, 't', none)).toBeNull();
  });
});

describe('route validation: what is refused, naming the field', () => {
  for (const c of INVALID_ROUTES) {
    it(c.what, () => {
      for (const [base, has] of [
        [exampleRoutes(), known],
        [exampleRoutesWithoutCredentials(), none],
      ] as const) {
        c.change(base);
        const problem = routeProblem(base, 'acme', has);
        expect(problem?.path).toBe(c.path);
        expect(problem?.message).toMatch(c.message);
      }
    });
  }

  it('a credential the tenant does not have, in the wiring that knows none yet', () => {
    expect(routeProblem(exampleRoutes(), 'acme', none)).toEqual({ path: 'targets.openai-main.credential', message: 'unknown credential "openai-prod": this tenant has no provider credential of that name' });
  });

  it('a body that is not routes at all', () => {
    expect(routeProblem({}, 't', none)).toEqual({ path: '', message: 'missing required field "targets"' });
    expect(routeProblem([], 't', none)?.message).toBe('must be object');
    expect(routeProblem(null, 't', none)?.message).toBe('must be object');
    expect(routeProblem('targets', 't', none)?.message).toBe('must be object');
    expect(routeProblem({ targets: [] }, 't', none)).toEqual({ path: 'targets', message: 'must be object' });
    expect(routeProblem({ targets: { a: 'https://x' } }, 't', none)).toEqual({ path: 'targets.a', message: 'must be object' });
    expect(routeProblem({ targets: { a: { provider: 'openai' } } }, 't', none)).toEqual({ path: 'targets.a', message: 'missing required field "base_url"' });
  });

  it('a model name with a slash keeps it in the path', () => {
    const spec = exampleRoutesWithoutCredentials();
    spec.models['org/model'] = { strategy: 'fallback', targets: ['nowhere'] };
    expect(routeProblem(spec, 't', none)?.path).toBe('models.org/model.targets.0');
  });

  it('validateRoutes: a 400 whose message is the path, then the problem', () => {
    const spec = exampleRoutesWithoutCredentials();
    spec.targets.local.base_url = 'https://vllm/v1?key=1';
    let thrown: unknown;
    try {
      validateRoutes(spec, 't', none);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).status).toBe(400);
    expect((thrown as GatewayError).type).toBe('invalid_request');
    expect((thrown as GatewayError).message).toMatch(/^targets\.local\.base_url: must not have a query/);
    expect(() => validateRoutes({}, 't', none)).toThrow(/^missing required field "targets"$/);
  });
});

describe('baseUrlProblem', () => {
  it.each([
    'https://api.openai.com/v1',
    'http://vllm:8000/v1',
    'HTTPS://API.EXAMPLE.COM',
    'https://x.openai.azure.com',
    'http://[::1]:8000/v1',
    'http://127.0.0.1:8000',
    'https://gateway.example/openai/v1/',
  ])('takes %s', (url) => expect(baseUrlProblem(url)).toBeNull());

  it.each([
    ['', /absolute/],
    ['//api.example.com/v1', /absolute/],
    ['file:///etc/passwd', /absolute/],
    ['javascript:alert(1)', /absolute/],
    ['ws://x.example', /absolute/],
    ['https://', /absolute/],
    ['https://a:b@x.example', /credentials/],
    ['https://a@x.example', /credentials/],
    ['https://:b@x.example', /credentials/],
    ['https://x.example/v1?api-version=1', /query/],
    ['https://x.example/v1#frag', /fragment/],
    [' https://x.example', /spaces/],
    ['https://x.example/\tv1', /spaces/],
    ['https://x.example/\u0000', /control/],
  ])('refuses %j', (url, why) => expect(baseUrlProblem(url)).toMatch(why));

  it('an @ in the path is not a user', () => expect(baseUrlProblem('https://x.example/v1/@team')).toBeNull());
});
