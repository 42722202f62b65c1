import type { Assessment, Finding } from '../assessment/assessment.js';
import { drawText, heightOfString } from './pdf/text-fit.js';
import { drawDimensionBars, drawGauge, GAUGE_HEIGHT } from './charts.js';
import { PROFILE_LABEL, SEVERITY_COLOUR, SEVERITY_LABEL } from './report-labels.js';
import { CONTENT_WIDTH, MARGIN, STYLE, type ReportLayout } from './report-layout.js';

/** The findings a reader should act on first: by priority, then severity order, then id (stable across runs). */
export function mostUrgent(findings: readonly Finding[], count: number): Finding[] {
  return [...findings]
    .filter((f) => f.severity !== 'Informational')
    .sort((a, b) => a.priority - b.priority || a.id.localeCompare(b.id))
    .slice(0, count);
}

/** Summary page: gauge with score and grade, the key figures, the three most urgent actions and the dimension bars. */
export function drawSummary(layout: ReportLayout, assessment: Assessment): void {
  layout.newPage();
  layout.heading('Resumo', STYLE.h1);
  const top = layout.y;
  drawGauge(layout, MARGIN, top, assessment.globalScore, assessment.grade);
  const x = MARGIN + 170;
  const width = CONTENT_WIDTH - 170;
  let y = top;
  const fact = (label: string, value: string, lines = 1): void => {
    y += drawText(layout.doc, label, x, y, width, 1, STYLE.small);
    y += drawText(layout.doc, value, x, y, width, lines, STYLE.h3) + 4;
  };
  fact('Site', assessment.url, 2);
  fact('Pontuação geral', `${String(assessment.globalScore)} de 100 · nota ${assessment.grade}`);
  fact('Verificações aprovadas', `${String(assessment.checksSummary.passed)} de ${String(assessment.checksSummary.total)} · perfil ${PROFILE_LABEL[assessment.profile] ?? assessment.profile}`);
  fact('Problemas críticos', String(assessment.criticalIssues.length));
  layout.y = Math.max(top + GAUGE_HEIGHT + 30, y) + 8;

  layout.heading('As três ações mais urgentes');
  const urgent = mostUrgent(assessment.findings, 3);
  if (urgent.length === 0) layout.paragraph('Nenhuma ação urgente: nenhuma verificação falhou.', STYLE.body);
  urgent.forEach((finding, i) => {
    const textX = MARGIN + 22;
    const textWidth = CONTENT_WIDTH - 22;
    const height = heightOfString(layout.doc, finding.title, textWidth, 2, STYLE.h3) + heightOfString(layout.doc, finding.recommendation, textWidth, 3, STYLE.body) + 12;
    layout.ensure(height);
    layout.doc.fillRect(MARGIN, layout.y, 16, 16, SEVERITY_COLOUR[finding.severity]);
    drawText(layout.doc, String(i + 1), MARGIN + 5, layout.y + 3, 10, 1, { font: 'bold', size: 10, colour: '#ffffff' });
    let y2 = layout.y;
    y2 += drawText(layout.doc, finding.title, textX, y2, textWidth, 2, STYLE.h3);
    y2 += drawText(layout.doc, `${finding.recommendation} (gravidade ${SEVERITY_LABEL[finding.severity]}, esforço ${finding.effort})`, textX, y2, textWidth, 3, STYLE.body);
    layout.y = y2 + 12;
  });

  layout.heading('Pontuação por dimensão', STYLE.h2, 150);
  drawDimensionBars(layout, assessment.dimensions);
}
