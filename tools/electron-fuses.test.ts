// The packaged app's Electron fuses (electron-builder.yml `electronFuses`): each one set as the
// hardening needs, under the key names electron-builder really reads.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const config = parse(readFileSync(new URL('../electron-builder.yml', import.meta.url), 'utf8')) as Record<string, unknown>;
const fuses = (config['electronFuses'] ?? {}) as Record<string, unknown>;

/** What each fuse must be: no Node mode, no injected Node options or debugger, encrypted cookies, only a checked app.asar. */
const REQUIRED: Readonly<Record<string, boolean>> = {
  runAsNode: false,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  enableCookieEncryption: true,
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
};

describe('electron-builder.yml fuses', () => {
  it.each(Object.entries(REQUIRED))('%s is %s', (name, value) => {
    expect(fuses[name], `electron-builder.yml: electronFuses.${name} must be ${value}`).toBe(value);
  });

  it('names only fuses electron-builder knows (a misspelt key would be ignored)', () => {
    const require = createRequire(import.meta.url);
    const scheme = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as {
      definitions: { FuseOptionsV1: { properties: Record<string, unknown> } };
    };
    const known = Object.keys(scheme.definitions.FuseOptionsV1.properties);
    expect(known).toEqual(expect.arrayContaining(Object.keys(REQUIRED)));
    for (const name of Object.keys(fuses)) expect(known, `electron-builder.yml: electronFuses.${name} is not a fuse`).toContain(name);
  });

  it('packs the app into an app.asar with its integrity recorded, as the asar fuses need', () => {
    expect(config['asar'] ?? true).not.toBe(false);
    expect((config['asar'] as { disableIntegrity?: boolean } | undefined)?.disableIntegrity).not.toBe(true);
  });
});
