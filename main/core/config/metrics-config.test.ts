import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './load-config';
import { parseListen } from './metrics-config';

const BASE = 'hosts: { runner: { local: true } }\n';

function configError(text: string): string {
  try {
    parseConfig('/etc/loopdeck.yaml', BASE + text);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a config error');
}

describe('metrics.listen', () => {
  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464, loopback: true }],
    ['127.8.0.1:80', { host: '127.8.0.1', port: 80, loopback: true }],
    ['localhost:9464', { host: 'localhost', port: 9464, loopback: true }],
    ['[::1]:9464', { host: '::1', port: 9464, loopback: true }],
    ['0.0.0.0:9464', { host: '0.0.0.0', port: 9464, loopback: false }],
    ['[::]:9464', { host: '::', port: 9464, loopback: false }],
    ['metrics.example:9464', { host: 'metrics.example', port: 9464, loopback: false }],
  ])('%s parses', (text, expected) => {
    expect(parseListen(text)).toEqual(expected);
  });

  it.each(['9464', ':9464', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:65536', '::1:9464', '[nothost]:9464', '127.0.0.1:94x'])('%s is refused', (text) => {
    expect(parseListen(text)).toBeNull();
  });

  it('defaults to loopback 9464 when `metrics: {}` is written, and is absent otherwise', () => {
    expect(parseConfig('/c.yaml', `${BASE}metrics: {}\n`).metrics).toEqual({ listen: '127.0.0.1:9464', exposed: false });
    expect(parseConfig('/c.yaml', BASE).metrics).toBeUndefined();
  });

  it('a malformed address is an error naming the file, line and metrics.listen', () => {
    expect(configError('metrics:\n  listen: "9464"\n')).toMatch(/\/etc\/loopdeck\.yaml:3: metrics\.listen: expected "host:port"/);
  });

  it('a non-loopback address needs exposed: true', () => {
    expect(configError('metrics: { listen: "0.0.0.0:9464" }\n')).toMatch(/metrics\.listen: "0\.0\.0\.0:9464" is not a loopback address.*"exposed: true"/);
    expect(parseConfig('/c.yaml', `${BASE}metrics: { listen: "0.0.0.0:9464", exposed: true }\n`).metrics).toEqual({ listen: '0.0.0.0:9464', exposed: true });
  });

  it('unknown keys are refused (a typo must not silently leave the default)', () => {
    expect(configError('metrics: { listn: "127.0.0.1:1" }\n')).toMatch(/metrics: .*listn/);
  });
});
