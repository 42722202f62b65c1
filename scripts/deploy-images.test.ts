import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix } from 'node:path';
import { createRequire } from 'node:module';
import { DockerfileParser, type Copy, type From, type Healthcheck, type JSONInstruction } from 'dockerfile-ast';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The images, built without Docker (none runs here): each Dockerfile's stages are replayed in temp directories. COPY
 * copies from the build context (the repository less .dockerignore) or an earlier stage, as Docker does; RUN steps run
 * for real where they are our scripts (trim-workspaces, prune-node-modules) and are stood in for where they fetch or
 * compile: `npm ci` links this checkout's node_modules (installed from the same lockfile), `tsc -b` its build (npm
 * test builds before the tests). Then the image's file system is checked for what must not be in it, and its entry
 * point and health check are run.
 */
const root = new URL('..', import.meta.url).pathname;
// The package is CommonJS (module.exports = the factory) while its declarations say `export default`: typed here.
interface Ignore {
  add(patterns: string): Ignore;
  ignores(path: string): boolean;
}
const ignore = createRequire(import.meta.url)('@balena/dockerignore') as () => Ignore;
const dockerignore = ignore().add(readFileSync(join(root, '.dockerignore'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'aduana-images-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Image {
  /** The final stage's file system. */
  fs: string;
  /** Context paths any stage copied (files, relative to the repository). */
  context: string[];
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
  healthcheck: string[];
  /** Debian packages the final stage installs. */
  apt: string[];
}

function filesUnder(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...filesUnder(dir, path));
    else out.push(path);
  }
  return out;
}

/** Hard links (fast, and a later deletion in the stage leaves the checkout alone). */
function link(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  const r = spawnSync('cp', ['-al', from, to]);
  if (r.status !== 0) throw new Error(`cp -al ${from} ${to}: ${r.stderr}`);
}

function build(dockerfile: string): Image {
  const image: Image = { fs: '', context: [], env: {}, entrypoint: [], cmd: [], healthcheck: [], apt: [] };
  const stages = new Map<string, string>();
  let fs = '';
  let workdir = '/';
  const inStage = (p: string) => join(fs, posix.resolve(workdir, p));

  const copyFromContext = (sources: string[], dest: string) => {
    for (const src of sources) {
      const rel = posix.normalize(src).replace(/\/$/, '');
      expect(existsSync(join(root, rel)), `${dockerfile}: COPY ${src}: not in the repository`).toBe(true);
      const isDir = lstatSync(join(root, rel)).isDirectory();
      const files = isDir ? filesUnder(join(root, rel)).map((f) => `${rel}/${f}`) : [rel];
      for (const file of files.filter((f) => !dockerignore.ignores(f))) {
        image.context.push(file);
        const target = isDir ? join(inStage(dest), file.slice(rel.length + 1)) : dest.endsWith('/') ? join(inStage(dest), basename(file)) : inStage(dest);
        mkdirSync(dirname(target), { recursive: true });
        cpSync(join(root, file), target);
      }
    }
  };
  const copyFromStage = (stageFs: string, sources: string[], dest: string) => {
    for (const src of sources) {
      const from = join(stageFs, src);
      expect(existsSync(from), `${dockerfile}: COPY --from: ${src} is not in that stage`).toBe(true);
      if (lstatSync(from).isDirectory()) {
        mkdirSync(inStage(dest), { recursive: true });
        link(`${from}/.`, inStage(dest));
      } else link(from, dest.endsWith('/') ? join(inStage(dest), basename(src)) : inStage(dest));
    }
  };
  const workspacesOf = () => (JSON.parse(readFileSync(inStage('package.json'), 'utf8')) as { workspaces: string[] }).workspaces;

  const RUN: [RegExp, (m: RegExpExecArray) => void][] = [
    [/^apt-get update && apt-get install -y --no-install-recommends ([\w .+-]+?) && rm -rf \/var\/lib\/apt\/lists\/\*$/, (m) => (image.apt = (m[1] as string).split(' '))],
    [/^node (\S+trim-workspaces\.mjs) ([\w ]+)$/, (m) => {
      const r = spawnSync(process.execPath, [join(fs, posix.resolve(workdir, m[1] as string)), ...(m[2] as string).split(' ')], { cwd: inStage('.'), encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    }],
    [/^npm ci\b/, () => {
      link(join(root, 'node_modules'), inStage('node_modules'));
      for (const w of workspacesOf()) if (existsSync(join(root, w, 'node_modules'))) link(join(root, w, 'node_modules'), inStage(`${w}/node_modules`));
    }],
    [/^npx tsc -b (\w+)$/, () => {
      for (const w of workspacesOf()) {
        expect(existsSync(join(root, w, 'dist')), `${w}/dist: run \`npm run build\` first (npm test does)`).toBe(true);
        link(join(root, w, 'dist'), inStage(`${w}/dist`));
      }
    }],
    [/^node (\S+prune-node-modules\.mjs) (\S+) ([\w ]+) && rm package-lock\.json$/, (m) => {
      const r = spawnSync(process.execPath, [join(fs, m[1] as string), join(fs, m[2] as string), ...(m[3] as string).split(' ')], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      rmSync(inStage('package-lock.json'));
    }],
    [/^ln -s (\S+) (\S+) && mkdir -p \/data && chown 1000:1000 \/data$/, (m) => {
      mkdirSync(join(fs, dirname(m[2] as string)), { recursive: true });
      symlinkSync(join(fs, m[1] as string), join(fs, m[2] as string));
    }],
  ];

  const parsed = DockerfileParser.parse(readFileSync(join(root, dockerfile), 'utf8'));
  for (const ins of parsed.getInstructions()) {
    const args = ins.getArguments().map((a) => a.getValue());
    switch (ins.getKeyword()) {
      case 'FROM': {
        expect((ins as From).getImageName(), 'every stage starts from the slim Node 22 image').toBe('node');
        expect((ins as From).getImageTag()).toBe('22-bookworm-slim');
        fs = mkdtempSync(join(work, 'stage-'));
        workdir = '/';
        const name = (ins as From).getBuildStage();
        if (name) stages.set(name, fs);
        image.apt = [];
        image.env = {};
        break;
      }
      case 'WORKDIR':
        workdir = args[0] as string;
        mkdirSync(inStage('.'), { recursive: true });
        break;
      case 'COPY': {
        const from = (ins as Copy).getFromFlag()?.getValue();
        const dest = args.at(-1) as string;
        if (from) copyFromStage(stages.get(from) as string, args.slice(0, -1), dest);
        else copyFromContext(args.slice(0, -1), dest);
        break;
      }
      case 'RUN': {
        const command = ins.getArgumentsContent()?.replace(/^--mount=\S+\s+/, '') ?? '';
        const step = RUN.find(([re]) => re.test(command));
        if (!step) throw new Error(`${dockerfile}: RUN ${command}: no stand-in for it here; add one`);
        step[1](step[0].exec(command) as RegExpExecArray);
        break;
      }
      case 'ENV':
        for (const a of args) image.env[a.split('=')[0] as string] = a.split('=').slice(1).join('=');
        break;
      case 'ENTRYPOINT':
        image.entrypoint = (ins as JSONInstruction).getJSONStrings().map((s) => s.getJSONValue());
        break;
      case 'CMD':
        image.cmd = (ins as JSONInstruction).getJSONStrings().map((s) => s.getJSONValue());
        break;
      case 'HEALTHCHECK':
        image.healthcheck = JSON.parse((ins as Healthcheck).getArgumentsContent()!.replace(/^.*?CMD\s+/, '')) as string[];
        break;
    }
  }
  image.fs = fs;
  return image;
}

function installedPackages(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules).flatMap((e) => (e.startsWith('.') ? [] : e.startsWith('@') ? readdirSync(join(nodeModules, e)).map((n) => `${e}/${n}`) : [e]));
}

function du(dir: string): number {
  return Number(spawnSync('du', ['-sb', dir], { encoding: 'utf8' }).stdout.split('\t')[0]);
}

/** Runs the image's ENTRYPOINT + CMD with its ENV (PATH: the image's /usr/local/bin, then this Node), until `ready`. */
function runImage(image: Image, env: Record<string, string>, ready: RegExp): Promise<{ stop: () => Promise<void>; match: RegExpMatchArray; output: () => string }> {
  const [program, ...args] = [...image.entrypoint, ...image.cmd];
  const PATH = `${join(image.fs, 'usr/local/bin')}:${dirname(process.execPath)}:/usr/bin:/bin`;
  const child = spawn(program as string, args, { cwd: join(image.fs, 'app'), env: { PATH, HOME: work, ...image.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the image did not start: ${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = out.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve({ match: m, output: () => out, stop: () => new Promise((r) => (child.once('exit', () => r()), child.kill('SIGTERM'))) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the image exited with ${code}: ${out}`)));
  });
}

function healthcheck(image: Image, env: Record<string, string>): number | null {
  const [program, script, ...args] = image.healthcheck;
  expect(program).toBe('node');
  return spawnSync(process.execPath, [join(image.fs, script as string), ...args], { env: { ...process.env, ...env } }).status;
}

const FORBIDDEN_EVERYWHERE = ['typescript', 'vitest', 'openai', 'eslint', 'kubernetes-models', 'autocannon', 'tinybench', 'node-gyp', 'nan', 'install-artifact-from-github', '@aduana/bench', '@aduana/sdk'];

describe('deploy/gateway.Dockerfile: the gateway sidecar', () => {
  let image: Image;
  let app: string;
  beforeAll(() => {
    image = build('deploy/gateway.Dockerfile');
    app = join(image.fs, 'app');
  });

  it('copies only the gateway\'s and shared sources, manifests and build scripts from the context: no tests, benchmarks, scanner or data', () => {
    expect(image.context.length).toBeGreaterThan(0);
    for (const file of image.context) {
      expect(file, 'context').toMatch(/^(package\.json|package-lock\.json|tsconfig\.json|(shared|gateway)\/(package\.json|tsconfig\.json|src\/.+)|deploy\/[\w-]+\.mjs|scripts\/(aduana|aduana\.mjs|use-node22\.sh))$/);
      expect(file).not.toMatch(/\.test\.ts$|(^|\/)(node_modules|dist|data)\//);
    }
  });

  it('holds the gateway\'s production dependencies only, one uWebSockets.js binary, no re2 build leftovers, no declarations or maps', () => {
    const packages = installedPackages(join(app, 'node_modules'));
    for (const p of ['uWebSockets.js', 're2', 'lmdb', 'pino', 'undici', '@aduana/shared', '@aduana/gateway']) expect(packages, p).toContain(p);
    for (const p of [...FORBIDDEN_EVERYWHERE, 'fastify', 'cheerio', 'pdfkit', 'playwright-core', '@aduana/scanner']) expect(packages, p).not.toContain(p);
    expect(existsSync(join(app, 'scanner'))).toBe(false);
    expect(existsSync(join(app, 'bench'))).toBe(false);
    const uws = readdirSync(join(app, 'node_modules/uWebSockets.js/dist/bin'));
    expect(uws).toEqual([`uws_${process.platform}_${process.arch}_${process.versions.modules}.node`]);
    expect(existsSync(join(app, 'node_modules/re2/vendor'))).toBe(false);
    expect(filesUnder(join(app, 'node_modules/re2/build'))).toEqual(['Release/re2.node']);
    expect(filesUnder(app).filter((f) => /\.(d\.[mc]?ts|map|tsbuildinfo)$/.test(f))).toEqual([]);
    expect(filesUnder(app).filter((f) => f.endsWith('.node')).length).toBeLessThanOrEqual(6);
    console.log(`gateway image /app: ${(du(app) / 2 ** 20).toFixed(1)} MiB (node_modules ${(du(join(app, 'node_modules')) / 2 ** 20).toFixed(1)} MiB)`);
  });

  it('its entry point is `aduana` on PATH (gateway by default), and its health check passes while it serves', async () => {
    expect(image.entrypoint).toEqual(['aduana']);
    expect(image.cmd).toEqual(['gateway']);
    expect(image.env).toMatchObject({ NODE_ENV: 'production', DATA_DIR: '/data' });
    const dataDir = mkdtempSync(join(work, 'data-'));
    const running = await runImage(image, { DATA_DIR: dataDir, HOST: '127.0.0.1', GATEWAY_PORT: '0', AUTH_PORT: '0', ADUANA_QUIET_BOOTSTRAP: 'true' }, /API and proxy on http:\/\/[\d.]+:(\d+)/);
    const port = running.match[1] as string;
    try {
      expect(healthcheck(image, { GATEWAY_PORT: port })).toBe(0);
    } finally {
      await running.stop();
    }
    expect(healthcheck(image, { GATEWAY_PORT: port }), 'fails once the gateway is gone').toBe(1);
    // The same command runs the admin commands: `aduana token list` against the data volume.
    const list = spawnSync(join(image.fs, 'usr/local/bin/aduana'), ['token', 'list', '--tenant', 'default'], { env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, DATA_DIR: dataDir }, encoding: 'utf8' });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain('bootstrap admin');
  });
});

describe('deploy/scanner.Dockerfile: the site assessment service with Chromium', () => {
  let image: Image;
  let app: string;
  beforeAll(() => {
    image = build('deploy/scanner.Dockerfile');
    app = join(image.fs, 'app');
  });

  it('copies only the scanner\'s and shared sources from the context, and installs Chromium', () => {
    for (const file of image.context) {
      expect(file, 'context').toMatch(/^(package\.json|package-lock\.json|tsconfig\.json|(shared|scanner)\/(package\.json|tsconfig\.json|src\/.+)|deploy\/[\w-]+\.mjs|scripts\/(aduana|aduana\.mjs|use-node22\.sh))$/);
      expect(file).not.toMatch(/\.test\.ts$|(^|\/)(node_modules|dist|data)\//);
    }
    expect(image.apt).toContain('chromium');
  });

  it('holds the scanner\'s production dependencies only: none of the gateway\'s', () => {
    const packages = installedPackages(join(app, 'node_modules'));
    for (const p of ['fastify', 'cheerio', 'pdfkit', 'playwright-core', '@aduana/shared', '@aduana/scanner']) expect(packages, p).toContain(p);
    for (const p of [...FORBIDDEN_EVERYWHERE, 'uWebSockets.js', 're2', 'ioredis', 'pg', '@opentelemetry/api', '@sentry/core', 'openid-client', '@aduana/gateway']) expect(packages, p).not.toContain(p);
    expect(existsSync(join(app, 'gateway'))).toBe(false);
    expect(filesUnder(app).filter((f) => /\.(d\.[mc]?ts|map|tsbuildinfo)$/.test(f))).toEqual([]);
    console.log(`scanner image /app: ${(du(app) / 2 ** 20).toFixed(1)} MiB (node_modules ${(du(join(app, 'node_modules')) / 2 ** 20).toFixed(1)} MiB)`);
  });

  it('its entry point is `aduana scanner`, and its health check passes while it serves', async () => {
    expect(image.entrypoint).toEqual(['aduana']);
    expect(image.cmd).toEqual(['scanner']);
    const dataDir = mkdtempSync(join(work, 'data-'));
    const running = await runImage(image, { DATA_DIR: dataDir, HOST: '127.0.0.1', SCANNER_PORT: '0' }, /aduana scanner: listening on http:\/\/[\d.]+:(\d+)/);
    const port = running.match[1] as string;
    try {
      expect(healthcheck(image, { SCANNER_PORT: port })).toBe(0);
    } finally {
      await running.stop();
    }
  });
});
