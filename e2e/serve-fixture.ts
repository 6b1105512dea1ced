import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servedUrl } from '../testing/served-url';
import { TEST_CLI } from '../testing/test-cli';

const BIN = TEST_CLI;

/** How long a `serve` or `demo` may take to print its URL (within a hook's 90 s, playwright.config.ts). */
export const SERVE_TIMEOUT_MS = 75_000;

/** A runner folder on this machine and a config that follows it. */
export interface Runner {
  readonly dir: string;
  readonly configPath: string;
  readonly dataDir: string;
  write(date: string, name: string, text: string): void;
  append(date: string, name: string, text: string): void;
}

/**
 * Create a throwaway runner folder with a `reliability` loop, on a local host unless another
 * `hosts:` entry is given; `moreYaml` is appended to the config (top-level sections such as `serve:`
 * or `drills:`).
 */
export function createRunner(hostYaml = '{ local: true }', moreYaml = ''): Runner {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-e2e-'));
  const runs = join(dir, 'runs');
  mkdirSync(runs);
  const configPath = join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    `hosts:\n  runner: ${hostYaml}\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(runs)}\n    phases: [audit, remediate, deliver]\n${moreYaml}`,
  );
  const at = (date: string, name: string): string => {
    mkdirSync(join(runs, date), { recursive: true });
    return join(runs, date, name);
  };
  return {
    dir,
    configPath,
    dataDir: join(dir, 'data'),
    write: (date, name, text) => writeFileSync(at(date, name), text),
    append: (date, name, text) => appendFileSync(at(date, name), text),
  };
}

/** A `loopdeck serve` process and the URL it printed. */
export interface Served {
  readonly url: string;
  readonly origin: string;
  stop(): Promise<void>;
}

/** Start `loopdeck serve` (the real CLI) and wait for the URL it prints. */
export async function serve(args: readonly string[], env: NodeJS.ProcessEnv = {}, command: 'serve' | 'demo' = 'serve'): Promise<Served> {
  const child: ChildProcess = spawn(process.execPath, [BIN, command, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  // The demo seeds a month of history first: ~6 s of CPU, several times that on a busy machine.
  const { url } = await servedUrl(child, { name: `loopdeck ${command}`, timeoutMs: SERVE_TIMEOUT_MS });
  return {
    url,
    origin: new URL(url).origin,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** An ISO stamp with a UTC offset, as the runner's wrapper writes them. */
export function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/**
 * Serve a runner's config with a HOME of its own (no known_hosts) and no SSH agent: only what the
 * operator trusts in Loopdeck decides whether an SSH host is reached.
 */
export function serveWithFreshHome(runner: Pick<Runner, 'configPath' | 'dataDir'>): Promise<Served> {
  const home = mkdtempSync(join(tmpdir(), 'loopdeck-e2e-home-'));
  mkdirSync(join(home, '.ssh'));
  return serve(['--config', runner.configPath, '--data', runner.dataDir], { HOME: home, SSH_AUTH_SOCK: '' });
}
