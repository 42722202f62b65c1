/**
 * JSON Schema (draft-07, for ajv) of the Assessment record, written from the API's resources (docs/scanner.md):
 * every listed field required, with their documented types and ranges. Tests validate every assessment against it.
 * Beside the listed fields an Assessment carries `scoringVersion` and `checks` (both in docs/scanner.md); they are
 * declared here too, and no other property is allowed.
 * Every enum is the list the code itself is typed from, so the schema cannot drift from it.
 */
import { ALL_PROFILES, AUDIENCES, DIMENSIONS, EFFORTS, PILLARS, SEVERITIES } from '../checks/check.js';
import { GRADES } from '../scoring/scoring.js';

const PILLAR = { type: 'string', enum: PILLARS } as const;
const SEVERITY = { type: 'string', enum: SEVERITIES } as const;
const DIMENSION = {
  type: 'object',
  required: ['score', 'measured'],
  additionalProperties: false,
  properties: { score: { type: 'number', minimum: 0, maximum: 100 }, measured: { type: 'boolean' } },
} as const;
const PILLAR_SCORE = {
  type: 'object',
  required: ['score', 'passed', 'total'],
  additionalProperties: false,
  properties: { score: { type: 'number', minimum: 0, maximum: 100 }, passed: { type: 'integer', minimum: 0 }, total: { type: 'integer', minimum: 0 } },
} as const;

export const FINDING_SCHEMA = {
  type: 'object',
  required: ['id', 'pillar', 'title', 'evidence', 'impact', 'businessImpact', 'recommendation', 'audience', 'severity', 'priority', 'effort', 'references'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1 },
    pillar: PILLAR,
    title: { type: 'string', minLength: 1 },
    evidence: { type: 'string', minLength: 1 },
    impact: { type: 'string', minLength: 1 },
    businessImpact: { type: 'string', minLength: 1 },
    recommendation: { type: 'string', minLength: 1 },
    audience: { type: 'array', minItems: 1, items: { type: 'string', enum: AUDIENCES } },
    severity: SEVERITY,
    priority: { type: 'integer', minimum: 1 },
    effort: { type: 'string', enum: EFFORTS },
    references: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['label', 'url'],
        additionalProperties: false,
        properties: { label: { type: 'string', minLength: 1 }, url: { type: 'string', format: 'uri' } },
      },
    },
  },
} as const;

export const ASSESSMENT_SCHEMA = {
  $id: 'https://aduana.dev/schemas/assessment.json',
  type: 'object',
  required: ['scanId', 'requestId', 'url', 'timestamp', 'globalScore', 'grade', 'profile', 'mode', 'checksSummary', 'commerceRisk', 'findings', 'dimensions', 'pillars', 'criticalIssues', 'checks'],
  additionalProperties: false,
  properties: {
    scanId: { type: 'string', format: 'uuid' },
    requestId: { type: 'string', minLength: 1 },
    url: { type: 'string', format: 'uri' },
    timestamp: { type: 'string', format: 'date-time' },
    globalScore: { type: 'number', minimum: 0, maximum: 100 },
    grade: { type: 'string', enum: GRADES },
    profile: { type: 'string', enum: ALL_PROFILES },
    mode: { const: 'static' },
    scoringVersion: { type: 'string', minLength: 1 },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'dimension', 'pillar', 'status', 'evidence', 'version'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', minLength: 1 },
          dimension: { type: 'string', enum: DIMENSIONS },
          pillar: PILLAR,
          status: { type: 'string', enum: ['pass', 'fail', 'informational', 'not_applicable', 'not_measured', 'error'] },
          evidence: { type: 'string' },
          version: { type: 'integer', minimum: 1 },
        },
      },
    },
    checksSummary: {
      type: 'object',
      required: ['passed', 'total'],
      additionalProperties: false,
      properties: { passed: { type: 'integer', minimum: 0 }, total: { type: 'integer', minimum: 0 } },
    },
    commerceRisk: {
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['level', 'signals'],
          additionalProperties: false,
          properties: { level: { type: 'string', enum: ['low', 'medium', 'high'] }, signals: { type: 'array', items: { type: 'string' } } },
        },
      ],
    },
    findings: { type: 'array', items: FINDING_SCHEMA },
    dimensions: {
      type: 'object',
      required: DIMENSIONS,
      additionalProperties: false,
      properties: Object.fromEntries(DIMENSIONS.map((d) => [d, DIMENSION])),
    },
    pillars: {
      type: 'object',
      required: PILLARS,
      additionalProperties: false,
      properties: Object.fromEntries(PILLARS.map((p) => [p, PILLAR_SCORE])),
    },
    criticalIssues: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'pillar', 'severity'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, title: { type: 'string' }, pillar: PILLAR, severity: { const: 'High' } },
      },
    },
  },
} as const;
