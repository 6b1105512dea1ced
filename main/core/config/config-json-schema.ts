import * as z from 'zod';
import { ConfigSchema } from './schema';

/**
 * The config file's JSON Schema (draft 2020-12), generated from the zod schema that validates it
 * (one source): what an editor checks the YAML with while it is written (`loopdeck schema`, and
 * a `yaml-language-server` modeline pointing at its output). It describes what may be written
 * (durations and crons as strings); the checks across sections — a host that must be declared, a
 * `caps` key that must be a phase — are Loopdeck's at load time, naming the key.
 */
export function configJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }), title: 'Loopdeck config' };
}
