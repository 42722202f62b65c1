import { AUDIENCES, type Audience } from '../checks/check.js';
import type { Finding } from '../assessment/assessment.js';
import { drawText, heightOfString } from './pdf/text-fit.js';
import { AUDIENCE_LABEL, PILLAR_LABEL, RULE, SEVERITY_COLOUR, SEVERITY_LABEL } from './report-labels.js';
import { CONTENT_WIDTH, MARGIN, STYLE, type ReportLayout } from './report-layout.js';

const STRIP = 4;
const PAD = 8;
const TEXT_X = MARGIN + STRIP + PAD;
const TEXT_WIDTH = CONTENT_WIDTH - STRIP - 2 * PAD;
// Line budgets per field: a card has a bounded height, whatever the check wrote.
const LINES = { title: 2, meta: 1, evidence: 4, recommendation: 4, impact: 2 } as const;

/** Each finding under its first audience, the one it is written for; groups in the vocabulary's order. */
export function byAudience(findings: readonly Finding[]): Map<Audience, Finding[]> {
  const groups = new Map<Audience, Finding[]>(AUDIENCES.map((a) => [a, []]));
  for (const finding of [...findings].sort((a, b) => a.priority - b.priority || a.id.localeCompare(b.id))) {
    groups.get(finding.audience[0] ?? 'development')?.push(finding);
  }
  return groups;
}

/** Findings grouped by audience, one card each: title, severity and effort, evidence, recommendation, business impact. */
export function drawFindings(layout: ReportLayout, findings: readonly Finding[]): void {
  layout.newPage();
  layout.heading(`Problemas encontrados (${String(findings.length)})`, STYLE.h1);
  if (findings.length === 0) {
    layout.paragraph('Nenhum problema encontrado: todas as verificações aplicáveis passaram.', STYLE.body);
    return;
  }
  for (const [audience, group] of byAudience(findings)) {
    if (group.length === 0) continue;
    layout.heading(`${AUDIENCE_LABEL[audience]} (${String(group.length)})`, STYLE.h2, 90);
    for (const finding of group) drawCard(layout, finding);
  }
}

function drawCard(layout: ReportLayout, f: Finding): void {
  const meta = `Gravidade ${SEVERITY_LABEL[f.severity]} · esforço ${f.effort} · ${PILLAR_LABEL[f.pillar]} · ${f.id}`;
  const parts: [string, string, number][] = [
    ['Evidência', f.evidence, LINES.evidence],
    ['Recomendação', f.recommendation, LINES.recommendation],
    ['Impacto no negócio', f.businessImpact, LINES.impact],
  ];
  const height =
    PAD +
    heightOfString(layout.doc, f.title, TEXT_WIDTH, LINES.title, STYLE.h3) +
    heightOfString(layout.doc, meta, TEXT_WIDTH, LINES.meta, STYLE.small) +
    parts.reduce((sum, [label, text, lines]) => sum + heightOfString(layout.doc, label, TEXT_WIDTH, 1, STYLE.label) + heightOfString(layout.doc, text, TEXT_WIDTH, lines, STYLE.body) + 2, 0) +
    PAD;
  layout.ensure(height + 8);
  const top = layout.y;
  layout.doc.strokeRect(MARGIN, top, CONTENT_WIDTH, height, RULE);
  layout.doc.fillRect(MARGIN, top, STRIP, height, SEVERITY_COLOUR[f.severity]);
  let y = top + PAD;
  y += drawText(layout.doc, f.title, TEXT_X, y, TEXT_WIDTH, LINES.title, STYLE.h3);
  y += drawText(layout.doc, meta, TEXT_X, y, TEXT_WIDTH, LINES.meta, STYLE.small);
  for (const [label, text, lines] of parts) {
    y += drawText(layout.doc, label, TEXT_X, y, TEXT_WIDTH, 1, STYLE.label);
    y += drawText(layout.doc, text, TEXT_X, y, TEXT_WIDTH, lines, STYLE.body) + 2;
  }
  layout.y = top + height + 8;
}
