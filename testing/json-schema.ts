import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';

/** A real JSON Schema validator (Ajv, draft 2020-12) for `schema`: YAML text in, its errors out (null when valid). */
export function yamlValidator(schema: Record<string, unknown>): (yaml: string) => string | null {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  return (yaml) => (validate(parse(yaml)) ? null : JSON.stringify(validate.errors));
}
