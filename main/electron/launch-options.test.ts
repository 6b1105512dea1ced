import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPathFromArgv, nativeBindingPath } from './launch-options';

describe('configPathFromArgv', () => {
  it.each<[readonly string[], string | undefined]>([
    [['/opt/Loopdeck/loopdeck'], undefined],
    [['electron', '.', '--config', '/etc/loopdeck.yaml'], '/etc/loopdeck.yaml'],
    [['loopdeck', '--config=/tmp/a.yaml'], '/tmp/a.yaml'],
    [['loopdeck', '--config', 'a.yaml', '--config', 'b.yaml'], 'b.yaml'],
    [['loopdeck', '--config'], undefined],
    [['loopdeck', '--config', '--other'], undefined],
    [['loopdeck', '--config='], undefined],
    [['loopdeck', '--', '--config', 'x.yaml'], undefined],
    [['loopdeck', '--configure', 'x'], undefined],
    // Unknown options (Chromium switches, Electron's own) are not ours: skipped, not refused.
    [['electron', '.', '--no-sandbox', '--inspect=9229', '-x', '--config', 'c.yaml', '--enable-logging'], 'c.yaml'],
    [['loopdeck', '--config', 'a.yaml', '--config', '-v'], 'a.yaml'],
    [['loopdeck', '--config=--odd-name.yaml'], '--odd-name.yaml'],
    [['loopdeck', 'x.yaml', '--config'], undefined],
  ])('%j → %s', (argv, expected) => {
    expect(configPathFromArgv(argv)).toBe(expected);
  });
});

describe('nativeBindingPath', () => {
  it('uses resources/native when packaged and native/electron in the project otherwise', () => {
    const ctx = { resourcesPath: '/opt/Loopdeck/resources', appPath: '/work/loopdeck' };
    expect(nativeBindingPath({ ...ctx, isPackaged: true })).toBe(path.join('/opt/Loopdeck/resources', 'native', 'better_sqlite3.node'));
    expect(nativeBindingPath({ ...ctx, isPackaged: false })).toBe(path.join('/work/loopdeck', 'native', 'electron', 'better_sqlite3.node'));
  });
});
