// Prunes an installed tree to what one service runs, in an image's build stage (deploy/*.Dockerfile):
//   node deploy/prune-node-modules.mjs [--dry-run] ROOT WORKSPACE...
// ROOT holds node_modules and the workspaces (e.g. `shared gateway`), installed by `npm ci --omit=dev`. It removes
//  - every package the workspaces do not reach through their dependencies (npm keeps a package another workspace
//    needs, e.g. the scanner's playwright-core, which the gateway only tests with), nor through the tools that build
//    a native addon at install time (node-gyp and its kin: nothing loads them at run time);
//  - every native binary no process here loads: the dependencies that hold one are imported in a child process and
//    the binaries it mapped are kept (uWebSockets.js ships 24, one per platform and Node ABI; lmdb a musl build…);
//  - addon build leftovers (re2's vendored C++ sources and object files), whose kept binaries are stripped;
//  - type declarations and source maps, in node_modules and in the workspaces' dist.
// It prints what it removed and the bytes before and after as JSON; --dry-run removes nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/** Build tools that packages list as dependencies for their install script only. */
const BUILD_ONLY = new Set(['node-gyp', 'nan', 'node-addon-api', 'install-artifact-from-github']);
/** Files no running process reads. */
const UNUSED_FILE = /\.(d\.[mc]?ts|map|tsbuildinfo)$/;
/** An addon's build inputs and by-products, in packages built here from source (those with a binding.gyp). */
const ADDON_SOURCE = /\.(c|cc|cpp|cxx|h|hh|hpp|o|a|d|mk|gyp|gypi|py)$|^(Makefile|CMakeLists\.txt|config\.gypi)$/;

const args = process.argv.slice(2);
const dryRun = args[0] === '--dry-run';
if (dryRun) args.shift();
const [rootArg, ...workspaces] = args;
if (!rootArg || workspaces.length === 0) {
  process.stderr.write('usage: node deploy/prune-node-modules.mjs [--dry-run] ROOT WORKSPACE...\n');
  process.exit(2);
}
const root = resolve(rootArg);

const readManifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Node's lookup: DIR/node_modules/NAME, then each parent's, up to ROOT. */
function locate(name, fromDir) {
  for (let dir = fromDir; ; dir = resolve(dir, '..')) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dir === root || !dir.startsWith(root)) return null;
  }
}

/** Real paths of the workspaces and every package they reach at run time. */
function reachable() {
  const seen = new Set();
  const queue = workspaces.map((w) => realpathSync(join(root, w)));
  while (queue.length > 0) {
    const dir = queue.pop();
    if (seen.has(dir)) continue;
    seen.add(dir);
    const m = readManifest(dir);
    const optional = new Set([...Object.keys(m.optionalDependencies ?? {}), ...Object.keys(m.peerDependencies ?? {})]);
    for (const name of new Set([...Object.keys(m.dependencies ?? {}), ...optional])) {
      if (BUILD_ONLY.has(name)) continue;
      const found = locate(name, dir);
      if (found) queue.push(found);
      else if (!optional.has(name)) throw new Error(`${relative(root, dir) || '.'} needs ${name}, which is not installed: install with npm ci --omit=dev first`);
    }
  }
  return seen;
}

/** Every installed package directory (nested ones too) and every workspace link under DIR/node_modules. */
function installed(dir, out = []) {
  const nm = join(dir, 'node_modules');
  if (!existsSync(nm)) return out;
  for (const entry of readdirSync(nm)) {
    if (entry === '.bin' || entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? readdirSync(join(nm, entry)).map((n) => join(entry, n)) : [entry];
    for (const name of names) {
      const path = join(nm, name);
      out.push(path);
      if (!lstatSync(path).isSymbolicLink()) installed(path, out);
    }
  }
  return out;
}

function walk(dir, visit) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') walk(path, visit);
    } else visit(path, entry.name);
  }
}

function bytes(dir) {
  let total = 0;
  const count = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) count(path);
      else if (entry.isFile()) total += statSync(path).size;
    }
  };
  if (existsSync(dir)) count(dir);
  return total;
}

const removed = { packages: [], binaries: [], files: 0 };
const remove = (path) => {
  if (!dryRun) rmSync(path, { recursive: true, force: true });
};
const trees = [join(root, 'node_modules'), ...workspaces.map((w) => join(root, w))];
const before = trees.reduce((sum, t) => sum + bytes(t), 0);

// 1. Packages nothing reaches at run time. Links (workspaces) go when their target is not kept.
const keep = reachable();
for (const path of installed(root).concat(workspaces.flatMap((w) => installed(join(root, w))))) {
  const real = existsSync(path) ? realpathSync(path) : null; // null: a link to a workspace not in this image
  if (real === null && !lstatSync(path, { throwIfNoEntry: false })) continue;
  if (real !== null && keep.has(real)) continue;
  removed.packages.push(relative(root, path));
  remove(path);
}
remove(join(root, 'node_modules', '.bin'));

// 2. Addon build leftovers in the packages built here; their binaries stripped of debug sections (into a new file,
// so a binary hard-linked elsewhere is never changed in place).
const kept = [...keep].filter((dir) => dir.split(sep).includes('node_modules'));
const canStrip = spawnSync('strip', ['--version']).status === 0;
for (const dir of kept.filter((d) => existsSync(join(d, 'binding.gyp')))) {
  if (existsSync(join(dir, 'vendor'))) {
    removed.files++;
    remove(join(dir, 'vendor'));
  }
  // Under build/ only the binaries are loaded: object files, makefiles and their dependency lists go.
  for (const sub of existsSync(join(dir, 'build')) ? readdirSync(join(dir, 'build'), { withFileTypes: true }) : []) {
    const path = join(dir, 'build', sub.name);
    if (sub.isDirectory()) {
      for (const inner of readdirSync(path, { withFileTypes: true })) {
        if (inner.isFile() && inner.name.endsWith('.node')) continue;
        removed.files++;
        remove(join(path, inner.name));
      }
    } else {
      removed.files++;
      remove(path);
    }
  }
  walk(dir, (path, name) => {
    if (!ADDON_SOURCE.test(name) || path.includes(`${sep}build${sep}`)) return;
    removed.files++;
    remove(path);
  });
  walk(dir, (path, name) => {
    if (dryRun || !canStrip || !name.endsWith('.node') || !path.includes(`${sep}build${sep}`)) return;
    const out = `${path}.stripped`;
    if (spawnSync('strip', ['--strip-unneeded', '-o', out, path]).status === 0) renameSync(out, path);
    else rmSync(out, { force: true });
  });
}

// 3. Native binaries: import every direct dependency whose packages hold one, note which the process mapped.
const binariesIn = (dir) => {
  const found = [];
  walk(dir, (path, name) => name.endsWith('.node') && found.push(path));
  return found;
};
const nativeDirs = kept.filter((dir) => binariesIn(dir).length > 0);
function closure(dir, seen = new Set()) {
  if (seen.has(dir)) return seen;
  seen.add(dir);
  const m = readManifest(dir);
  for (const name of Object.keys({ ...m.dependencies, ...m.optionalDependencies })) {
    const found = BUILD_ONLY.has(name) ? null : locate(name, dir);
    if (found) closure(found, seen);
  }
  return seen;
}
function loadedBinaries() {
  const mapped = new Set();
  for (const w of workspaces) {
    const wsDir = join(root, w);
    const m = readManifest(wsDir);
    const hosts = Object.keys({ ...m.dependencies, ...m.optionalDependencies }).filter((name) => {
      const found = !BUILD_ONLY.has(name) && locate(name, wsDir);
      return found && nativeDirs.some((d) => closure(found).has(d));
    });
    if (hosts.length === 0) continue;
    // Imported from the workspace's directory, as the service resolves them. /proc/self/maps lists the mapped files.
    const probe = `for (const h of ${JSON.stringify(hosts)}) await import(h);\nconst fs = await import('node:fs');\nprocess.stdout.write(fs.readFileSync('/proc/self/maps', 'utf8'));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: wsDir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`loading ${hosts.join(', ')} from ${w} failed:\n${r.stderr}`);
    for (const line of r.stdout.split('\n')) {
      const file = line.split(/\s+/).slice(5).join(' ');
      if (file.endsWith('.node')) mapped.add(realpathSync(file));
    }
  }
  return mapped;
}
const mapped = loadedBinaries();
for (const dir of nativeDirs) {
  for (const file of binariesIn(dir)) {
    if (mapped.has(realpathSync(file))) continue;
    removed.binaries.push(relative(root, file));
    remove(file);
  }
}

// 4. Declarations and source maps, in node_modules and the workspaces' builds.
for (const dir of [...kept, ...workspaces.map((w) => join(root, w, 'dist'))].filter((d) => existsSync(d))) {
  walk(dir, (path, name) => {
    if (!UNUSED_FILE.test(name)) return;
    removed.files++;
    remove(path);
  });
}

// What is left must still load: the same imports, in a fresh process.
if (!dryRun) {
  const after = loadedBinaries();
  for (const file of mapped) if (!after.has(file)) throw new Error(`after pruning, ${relative(root, file)} is no longer loaded`);
}
const after = trees.reduce((sum, t) => sum + bytes(t), 0);
process.stdout.write(`${JSON.stringify({ dryRun, kept: kept.map((d) => relative(root, d)).sort(), loaded: [...mapped].map((f) => relative(root, f)).sort(), removed, bytesBefore: before, bytesAfter: after }, null, 2)}\n`);
