import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The gateway's rooms stand floor by floor (docs/architecture.md, "The gateway's rooms"): a room imports only rooms
 * below it, so the folders never knot into one component again. Counted by value imports (a type-only import costs
 * nothing at run time and ties no start-up order), tests left out.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Bottom to top. */
const FLOORS = [
  'errors.ts',
  'platform',
  'storage',
  'identity',
  'credentials',
  'http',
  'policy',
  'ledger',
  'governance',
  'agents',
  'telemetry',
  'request-log',
  'proxy',
  'mcp',
  'api',
  'fleet',
  'config.ts',
  'threads',
  'gateway-deps.ts',
  'gateway-ledger.ts',
  'gateway.ts',
  'control-plane.ts',
  'cli',
  'index.ts',
];

/**
 * Arrows that still run up, each to be removed (never added to): `from -> to`, paths below gateway/src. The test fails
 * when one is gone, so the list only shrinks. None today.
 */
const STILL_UP: readonly string[] = [];

function sources(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, into);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) into.push(path);
  }
  return into;
}

/** The files of this tree a file imports for their values (static imports and re-exports, and `import()` of a literal). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const onlyTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!onlyTypes) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const onlyTypes = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.exportClause.elements.every((e) => e.isTypeOnly));
      if (!onlyTypes) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

function roomOf(path: string): string {
  return relative(SRC, path).split('/')[0] as string;
}

const arrows = sources(SRC).flatMap((file) =>
  valueImports(file)
    .filter((target) => roomOf(target) !== roomOf(file))
    .map((target) => ({ from: relative(SRC, file), to: relative(SRC, target) })),
);

describe("the gateway's rooms", () => {
  it('every room has its floor', () => {
    const rooms = readdirSync(SRC).filter((name) => !name.endsWith('.test.ts') && !name.endsWith('.d.ts'));
    expect(rooms.filter((r) => !FLOORS.includes(r))).toEqual([]);
    expect(FLOORS.filter((r) => !rooms.includes(r))).toEqual([]);
  });

  it('imports run downward only, but for the arrows listed to be removed', () => {
    const up = arrows.filter((a) => FLOORS.indexOf(roomOf(join(SRC, a.to))) > FLOORS.indexOf(roomOf(join(SRC, a.from)))).map((a) => `${a.from} -> ${a.to}`);
    const unique = [...new Set(up)].sort();
    expect(unique.filter((a) => !STILL_UP.includes(a)), 'new upward arrows').toEqual([]);
    expect(STILL_UP.filter((a) => !unique.includes(a)), 'arrows gone: strike them from STILL_UP').toEqual([]);
  });

  it("docs/architecture.md lists the rooms, floor by floor, as they stand", () => {
    const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const block = /## The gateway's rooms\n\n```\ngateway\/src\/\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block, "the room list in docs/architecture.md").toBeDefined();
    const listed = (block as string)
      .split('\n')
      .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined)
      .map((name) => name.replace(/\/$/, ''));
    expect(listed).toEqual([...FLOORS].reverse());
  });
});
