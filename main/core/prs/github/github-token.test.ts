import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GithubConfigSchema } from '../../config/schema';
import { githubToken } from './github-token';

// The token rules: `env:NAME` from that variable, else `gh auth token` (the real gh CLI, Debian's
// package, reading its own hosts.yml under GH_CONFIG_DIR), else one clear message.

const config = (token?: string) => GithubConfigSchema.parse(token === undefined ? {} : { token });
const PATH = process.env.PATH ?? '/usr/bin:/bin';

describe('githubToken', () => {
  it('reads github.token "env:NAME" from that variable, and names the key and the variable when it is unset', async () => {
    expect(await githubToken(config('env:MY_GH_TOKEN'), 'github.com', { MY_GH_TOKEN: ' ghp_abc \n' })).toEqual({ token: 'ghp_abc', from: 'github.token (the environment variable MY_GH_TOKEN)' });
    const missing = await githubToken(config('env:MY_GH_TOKEN'), 'github.com', {});
    expect('error' in missing && missing.error).toMatch(/^github\.token is "env:MY_GH_TOKEN", but the environment variable MY_GH_TOKEN is not set/);
  });

  it('refuses "env:" followed by something that is not a variable name, at config time', () => {
    expect(GithubConfigSchema.safeParse({ token: 'env:not a name' }).success).toBe(false);
  });

  it('without github.token, takes what `gh auth token --hostname <host>` prints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-gh-'));
    writeFileSync(join(dir, 'hosts.yml'), 'github.com:\n    oauth_token: gho_from_gh_cli\n    user: octocat\n    git_protocol: https\nghe.example.com:\n    oauth_token: gho_enterprise\n');
    expect(await githubToken(config(), 'github.com', { PATH, GH_CONFIG_DIR: dir })).toEqual({ token: 'gho_from_gh_cli', from: '`gh auth token`' });
    expect(await githubToken(config(), 'ghe.example.com', { PATH, GH_CONFIG_DIR: dir })).toMatchObject({ token: 'gho_enterprise' });
  });

  it('says clearly when gh has no login for the host, or is not installed', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'loopdeck-gh-'));
    const noLogin = await githubToken(config(), 'github.com', { PATH, GH_CONFIG_DIR: empty });
    expect('error' in noLogin && noLogin.error).toMatch(/no github\.token in the config and `gh auth token --hostname github\.com` failed: no oauth token.*Going on without GitHub/);
    const bin = mkdtempSync(join(tmpdir(), 'loopdeck-nogh-'));
    const absent = await githubToken(config(), 'github.com', { PATH: bin });
    expect('error' in absent && absent.error).toMatch(/the gh CLI is not installed \(not on PATH\)/);
  });

  it('does not take gh\'s output when it exits non-zero, and never puts it in the message', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'loopdeck-fakegh-'));
    writeFileSync(join(bin, 'gh'), '#!/bin/sh\necho gho_leaked_secret\necho "error connecting to keyring" >&2\nexit 1\n');
    chmodSync(join(bin, 'gh'), 0o755);
    const r = await githubToken(config(), 'github.com', { PATH: bin });
    expect('error' in r && r.error).toContain('error connecting to keyring');
    expect(JSON.stringify(r)).not.toContain('gho_leaked_secret');
  });
});
