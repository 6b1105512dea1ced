import { execFile } from 'node:child_process';
import { readSecret, secretSource } from '../../config/secret';
import type { GithubConfig } from '../../config/schema';

/** A token, and where it came from in words (never the token): for messages. */
export type GithubToken = { readonly token: string; readonly from: string } | { readonly error: string };

/** How long `gh auth token` may take (it reads a file, or asks the keyring). */
const GH_TIMEOUT_MS = 10_000;

/** Where a configured token comes from, in words: `github.token (env GITHUB_TOKEN)`. */
export function tokenOrigin(config: GithubConfig): string {
  if (config.token === undefined) return '`gh auth token`';
  const source = secretSource(config.token);
  return source?.kind === 'env' ? `github.token (the environment variable ${source.name})` : 'github.token (in the config file)';
}

/**
 * The token to send: `github.token` (`env:NAME` read from that variable), else what
 * `gh auth token --hostname <host>` prints (the gh CLI's own login). The errors name the key, the
 * variable or the command, and what to do; none holds the token.
 */
export async function githubToken(config: GithubConfig, host: string, env: NodeJS.ProcessEnv): Promise<GithubToken> {
  if (config.token !== undefined) {
    const secret = readSecret('github.token', config.token, env);
    if ('error' in secret) return { error: `${secret.error}: set it, or remove github.token to use \`gh auth token\`; PRs are not read from GitHub until then` };
    return { token: secret.value, from: tokenOrigin(config) };
  }
  const answer = await new Promise<{ code: number | string | null; stdout: string; stderr: string }>((resolve) => {
    execFile('gh', ['auth', 'token', '--hostname', host], { env, timeout: GH_TIMEOUT_MS, maxBuffer: 64 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      const code = err ? ((err as NodeJS.ErrnoException).code ?? (err as { status?: number }).status ?? 1) : 0;
      resolve({ code: code as number | string, stdout: String(stdout), stderr: String(stderr) });
    });
  });
  const token = answer.stdout.trim();
  if (answer.code === 0 && /^\S+$/.test(token)) return { token, from: tokenOrigin(config) };
  const why =
    answer.code === 'ENOENT'
      ? 'the gh CLI is not installed (not on PATH)'
      : `\`gh auth token --hostname ${host}\` failed${answer.stderr.trim() ? `: ${answer.stderr.trim().split('\n')[0]?.slice(0, 200)}` : ''}`;
  return { error: `GitHub: no github.token in the config and ${why}; set github.token: "env:GITHUB_TOKEN" (or run \`gh auth login --hostname ${host}\`). Going on without GitHub: PR state comes from the loops alone.` };
}
