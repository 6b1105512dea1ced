import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './load-config';
import { configJsonSchema } from './config-json-schema';

const BASE = 'hosts: { runner: { local: true } }\nproxies:\n  crossbar: { host: runner, kind: crossbar, url: "http://127.0.0.1:8080" }\n';

function configError(text: string): string {
  try {
    parseConfig('/etc/loopdeck.yaml', BASE + text);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a config error');
}

describe('costs:', () => {
  it('takes prices per million tokens by model, per hour by host, a currency and a monthly budget', () => {
    const cfg = parseConfig(
      '/c.yaml',
      `${BASE}costs:\n  currency: EUR\n  models:\n    qwen3-32b: { tokens: 0.6 }\n    "openai/gpt-4.1": { input: 2, output: 8 }\n  hosts:\n    crossbar/gpu-1: 1.2\n    gpu-2: 0\n  budget: { monthly: 400 }\n`,
    );
    expect(cfg.costs).toEqual({
      currency: 'EUR',
      models: { 'qwen3-32b': { tokens: 0.6 }, 'openai/gpt-4.1': { input: 2, output: 8 } },
      hosts: { 'crossbar/gpu-1': 1.2, 'gpu-2': 0 },
      budget: { monthly: 400 },
    });
  });

  it('defaults the currency to USD and the sections to empty; no costs: none', () => {
    expect(parseConfig('/c.yaml', `${BASE}costs: { hosts: { gpu-1: 2 } }\n`).costs).toEqual({ currency: 'USD', models: {}, hosts: { 'gpu-1': 2 } });
    expect(parseConfig('/c.yaml', BASE).costs).toBeUndefined();
  });

  it.each([
    ['costs: { models: { x: { input: -1 } } }', /costs\.models\.x\.input: expected a price per million input tokens of 0 or more/],
    ['costs: { models: { x: { output: "cheap" } } }', /costs\.models\.x\.output: expected a price per million output tokens, a number such as 0\.6/],
    ['costs: { models: { x: { tokens: -0.5 } } }', /costs\.models\.x\.tokens: expected a price per million tokens \(input and output together\) of 0 or more/],
    ['costs: { models: { x: {} } }', /costs\.models\.x: expected at least one of tokens, input or output/],
    ['costs: { models: { x: { prompt: 1 } } }', /costs\.models\.x: Unrecognized key: "prompt"/],
    ['costs: { hosts: { gpu-1: -3 } }', /costs\.hosts\.gpu-1: expected a price per hour of 0 or more/],
    ['costs: { hosts: { gpu-1: "2/h" } }', /costs\.hosts\.gpu-1: expected a price per hour, a number such as 0\.6/],
    ['costs: { hosts: { crossbr/gpu-1: 1 } }', /costs\.hosts\.crossbr\/gpu-1: proxy "crossbr" is not declared under proxies \(declared: crossbar\)/],
    ['costs: { budget: { monthly: -10 } }', /costs\.budget\.monthly: expected a price per month of 0 or more/],
    ['costs: { budget: 300 }', /costs\.budget: /],
    ['costs: { currency: "" }', /costs\.currency: expected a currency such as "USD"/],
    ['costs: { modles: {} }', /costs: Unrecognized key: "modles"/],
  ])('refuses %s, naming the key', (text, message) => {
    expect(configError(`${text}\n`)).toMatch(message);
  });

  it('is in the editor schema', () => {
    const schema = configJsonSchema() as { properties: Record<string, { properties?: Record<string, unknown> }> };
    expect(Object.keys(schema.properties.costs?.properties ?? {}).sort()).toEqual(['budget', 'currency', 'hosts', 'models']);
  });
});
