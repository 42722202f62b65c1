// An image's build stage installs one service: `node deploy/trim-workspaces.mjs shared gateway` keeps only those
// workspaces in ./package.json, so npm ci neither needs nor installs the others (their package.json files are not in
// the build context), and drops the scripts (the repository's postinstall rebuilds re2 for a checkout's Node; an
// image's npm ci builds it for the image's own). The lockfile is unchanged: npm ci installs the versions it pins.
import { readFileSync, writeFileSync } from 'node:fs';

const workspaces = process.argv.slice(2);
if (workspaces.length === 0) {
  process.stderr.write('usage: node deploy/trim-workspaces.mjs WORKSPACE...\n');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const unknown = workspaces.filter((w) => !manifest.workspaces.includes(w));
if (unknown.length > 0) {
  process.stderr.write(`trim-workspaces: not workspaces of package.json: ${unknown.join(', ')}\n`);
  process.exit(2);
}
manifest.workspaces = workspaces;
delete manifest.scripts;
writeFileSync('package.json', `${JSON.stringify(manifest, null, 2)}\n`);
