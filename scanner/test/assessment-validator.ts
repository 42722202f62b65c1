import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ASSESSMENT_SCHEMA, FINDING_SCHEMA } from '../src/schemas/assessment.schema.js';

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ajv = addFormats(new Ajv({ allErrors: true, strict: true }));
export const validateAssessment: ValidateFunction = ajv.compile(ASSESSMENT_SCHEMA);
export const validateFinding: ValidateFunction = ajv.compile(FINDING_SCHEMA);

/** Readable validation errors for an assertion message. */
export function schemaErrors(validate: ValidateFunction, value: unknown): string {
  return validate(value) ? '' : ajv.errorsText(validate.errors, { separator: '\n' });
}
