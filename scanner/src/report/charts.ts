import { DIMENSIONS } from '../checks/check.js';
import type { Assessment } from '../assessment/assessment.js';
import { drawText } from './pdf/text-fit.js';
import { DIMENSION_LABEL, INK, MUTED, scoreColour, TRACK } from './report-labels.js';
import { CONTENT_WIDTH, MARGIN, STYLE, type ReportLayout } from './report-layout.js';

/**
 * The score gauge: a half ring from 0 (left) to 100 (right), filled to the global score in its grade's colour, the
 * score and grade in the middle. Vector paths only.
 */
export function drawGauge(layout: ReportLayout, x: number, y: number, score: number, grade: string): void {
  const radius = 62;
  const cx = x + radius + 10;
  const cy = y + radius + 10;
  const clamped = Math.max(0, Math.min(100, score));
  layout.doc.arc(cx, cy, radius, 180, 0, TRACK, 16);
  if (clamped > 0) layout.doc.arc(cx, cy, radius, 180, 180 - (180 * clamped) / 100, scoreColour(clamped), 16);
  // The assessment's own figure, unrounded: the report never restates a score differently.
  const text = String(score);
  drawText(layout.doc, text, cx - 40, cy - 34, 80, 1, { font: 'bold', size: 30, colour: INK });
  drawText(layout.doc, `Nota ${grade}`, cx - 40, cy + 2, 80, 1, { font: 'bold', size: 12, colour: scoreColour(clamped) });
  drawText(layout.doc, '0', cx - radius - 3, cy + 10, 20, 1, STYLE.small);
  drawText(layout.doc, '100', cx + radius - 12, cy + 10, 24, 1, STYLE.small);
}

/** Gauge height, for layout. */
export const GAUGE_HEIGHT = 100;

/** One horizontal bar per dimension, 0-100; a dimension that was not measured says so instead of showing a bar. */
export function drawDimensionBars(layout: ReportLayout, dimensions: Assessment['dimensions']): void {
  const labelWidth = 130;
  const valueWidth = 70;
  const trackWidth = CONTENT_WIDTH - labelWidth - valueWidth - 16;
  const rowHeight = 20;
  layout.ensure(rowHeight * DIMENSIONS.length);
  for (const dimension of DIMENSIONS) {
    const { score, measured } = dimensions[dimension];
    const top = layout.y;
    drawText(layout.doc, DIMENSION_LABEL[dimension], MARGIN, top + 3, labelWidth, 1, STYLE.body);
    const trackX = MARGIN + labelWidth + 8;
    layout.doc.fillRect(trackX, top + 2, trackWidth, 11, TRACK);
    if (measured) {
      const clamped = Math.max(0, Math.min(100, score));
      if (clamped > 0) layout.doc.fillRect(trackX, top + 2, (trackWidth * clamped) / 100, 11, scoreColour(clamped));
      drawText(layout.doc, `${String(score)}/100`, trackX + trackWidth + 8, top + 3, valueWidth, 1, { font: 'bold', size: 9.5, colour: INK });
    } else {
      drawText(layout.doc, 'não medido', trackX + trackWidth + 8, top + 3, valueWidth, 1, { font: 'regular', size: 9.5, colour: MUTED });
    }
    layout.y += rowHeight;
  }
}
