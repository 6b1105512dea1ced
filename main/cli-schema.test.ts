import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './core/config/load-config';
import { loopdeck } from '../testing/cli-run';
import { yamlValidator } from '../testing/json-schema';

// `loopdeck schema`: the config's JSON Schema for an editor, generated from the zod schema. A real
// JSON Schema validator (Ajv, draft 2020-12) takes what Loopdeck takes and refuses what it refuses.

const README = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

/** The README's configuration example: the first yaml block under "## Configuration" that is a config (has hosts). */
function readmeExample(): string {
  const section = README.slice(README.indexOf('## Configuration'));
  const block = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((b) => /^hosts:/m.test(b));
  if (!block) throw new Error('no yaml config example under ## Configuration in README.md');
  return block;
}

describe('loopdeck schema', () => {
  it("prints the config's JSON Schema, which validates what Loopdeck accepts (the README's example) and refuses what it refuses", async () => {
    const r = await loopdeck('schema');
    expect([r.code, r.stderr]).toEqual([0, '']);
    const schema = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const errorsOf = yamlValidator(schema);

    const example = readmeExample();
    expect(() => parseConfig('/README.yaml', example)).not.toThrow();
    expect(errorsOf(example)).toBeNull();

    // What Loopdeck refuses, the schema refuses too, at the same place.
    const bad: readonly [string, RegExp][] = [
      ['hosts: { r: { local: true } }\nloops: { l: { host: r, runs: /x, cycles: many } }\n', /\/loops\/l\/cycles/],
      ['hosts: { r: { local: true } }\nloops: { l: { host: r, runs: /x, colour: blue } }\n', /\/loops\/l/],
      ['hosts: { r: { local: maybe } }\n', /\/hosts\/r/],
      ['hosts: {}\nnotify: { pushover: { token: 5 } }\n', /\/notify\/pushover/],
    ];
    for (const [yaml, where] of bad) {
      expect(() => parseConfig('/c.yaml', yaml), yaml).toThrow();
      expect(errorsOf(yaml), yaml).toMatch(where);
    }
  });
});
