import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** poppler-utils (pdfinfo, pdftotext, pdftoppm; installed by scripts/system-packages.sh) on a written PDF. */
export const ARTIFACTS = join(import.meta.dirname, '..', '..', '..', 'test-artifacts', 'reports');

export interface Word {
  readonly page: number;
  readonly xMin: number;
  readonly yMin: number;
  readonly xMax: number;
  readonly yMax: number;
  readonly text: string;
}

/** Writes the PDF under test-artifacts/reports/ and answers its path. */
export function keep(name: string, pdf: Buffer): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.pdf`);
  writeFileSync(path, pdf);
  return path;
}

export function pageCount(path: string): number {
  const info = execFileSync('pdfinfo', [path], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
}

export function pdfInfo(path: string): string {
  return execFileSync('pdfinfo', [path], { encoding: 'utf8' });
}

/** The text, whitespace collapsed, so a phrase wrapped over two lines still matches. */
export function text(path: string): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).replace(/\s+/g, ' ');
}

/** The text laid out as on the page (-layout): a table row stays on one line. */
export function layoutText(path: string): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', '-layout', path, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** Every word with its box, from pdftotext -bbox. */
export function words(path: string): { pages: { width: number; height: number }[]; words: Word[] } {
  const xml = execFileSync('pdftotext', ['-enc', 'UTF-8', '-bbox', path, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const pages: { width: number; height: number }[] = [];
  const found: Word[] = [];
  for (const chunk of xml.split('<page ').slice(1)) {
    const size = /width="([\d.]+)" height="([\d.]+)"/.exec(chunk);
    pages.push({ width: Number(size?.[1]), height: Number(size?.[2]) });
    for (const m of chunk.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
      found.push({ page: pages.length, xMin: Number(m[1]), yMin: Number(m[2]), xMax: Number(m[3]), yMax: Number(m[4]), text: m[5] ?? '' });
    }
  }
  return { pages, words: found };
}

/** Renders every page to PNG with pdftoppm next to the PDF; answers the PNG paths. */
export function renderPngs(path: string, dpi = 60): string[] {
  const prefix = path.replace(/\.pdf$/, '');
  const base = prefix.split('/').pop() ?? '';
  for (const f of readdirSync(ARTIFACTS)) if (f.startsWith(`${base}-`) && f.endsWith('.png')) rmSync(join(ARTIFACTS, f));
  execFileSync('pdftoppm', ['-png', '-r', String(dpi), path, prefix]);
  return readdirSync(ARTIFACTS)
    .filter((f) => f.startsWith(`${base}-`) && f.endsWith('.png'))
    .sort()
    .map((f) => join(ARTIFACTS, f));
}
