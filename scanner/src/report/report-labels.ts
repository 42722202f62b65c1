import type { Audience, Dimension, Pillar, Severity } from '../checks/check.js';
import type { Colour } from './pdf/report-canvas.js';

/** The reports' Portuguese vocabulary (docs/scanner.md, "Reports"): one place, so both reports say the same. */

export const SEVERITY_LABEL: Readonly<Record<Severity, string>> = { High: 'Alta', Medium: 'Média', Low: 'Baixa', Informational: 'Informativa' };
export const SEVERITY_COLOUR: Readonly<Record<Severity, Colour>> = { High: '#c0392b', Medium: '#d35400', Low: '#b7950b', Informational: '#7f8c8d' };

export const AUDIENCE_LABEL: Readonly<Record<Audience, string>> = {
  executive: 'Para a direção',
  marketing: 'Para o marketing',
  development: 'Para o desenvolvimento',
  security: 'Para a segurança',
};

export const DIMENSION_LABEL: Readonly<Record<Dimension, string>> = {
  security: 'Segurança',
  privacy: 'Privacidade',
  performance: 'Desempenho',
  seo: 'SEO',
  accessibility: 'Acessibilidade',
  aiDiscovery: 'Descoberta por IA',
  agentReadiness: 'Prontidão para agentes',
};

export const PILLAR_LABEL: Readonly<Record<Pillar, string>> = {
  readiness: 'Prontidão',
  aeo: 'AEO',
  auditAgentic: 'Auditoria agêntica',
  securityGovernance: 'Segurança e governança',
};

export const PROFILE_LABEL: Readonly<Record<string, string>> = { content: 'Conteúdo', commerce: 'Comércio', api: 'API' };

export const INK: Colour = '#1b2631';
export const MUTED: Colour = '#5d6d7e';
export const RULE: Colour = '#d5d8dc';
export const BRAND: Colour = '#1f3a5f';
export const TRACK: Colour = '#e5e8e8';

/** Colour of a score, 0-100: the grade bands. */
export function scoreColour(score: number): Colour {
  if (score >= 90) return '#1e8449';
  if (score >= 70) return '#b7950b';
  if (score >= 60) return '#d35400';
  return '#c0392b';
}

/** Our name when no agency white-labels the report. */
export const DEFAULT_BRAND = 'aduana';

export function yesNo(value: boolean): string {
  return value ? 'Sim' : 'Não';
}

/** "23 de novembro de 2026", UTC. */
export function longDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const months = ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro'];
  return `${String(d.getUTCDate())} de ${months[d.getUTCMonth()] ?? ''} de ${String(d.getUTCFullYear())}`;
}
