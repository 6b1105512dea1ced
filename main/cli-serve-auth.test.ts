import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopdeck } from '../testing/cli-run';

describe('loopdeck serve with serve.auth in a config that does not load', () => {
  it('does not start (it would otherwise fall back to the token), and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-serve-auth-'));
    const config = join(dir, 'config.yaml');
    // A typo elsewhere makes the whole file invalid; serve.auth is then unknown.
    writeFileSync(config, 'hosts: { r: { lokal: true } }\nserve:\n  auth:\n    proxyHeader: X-Forwarded-User\n    trustedProxies: [127.0.0.1]\n    roles: { viewer: ["*"] }\n');
    const r = await loopdeck('serve', '--config', config, '--data', join(dir, 'data'), '--port', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${config} sets serve.auth but does not load, so serve will not start without its sign-in:`);
    expect(r.stderr).toContain(`${config}:1: hosts.r`);
    expect(r.stdout).not.toContain('Loopdeck is serving');
  });
});
