// Launching the built desktop app (out/main/index.js, as `npm run build` writes it) under
// Playwright, against a throwaway runner folder, config and data folder: never the operator's.
import { _electron, type ElectronApplication, type Page } from '@playwright/test';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: Electron is started on it, so package.json's `main` names the built shell. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the suite runs, for the message when it cannot. */
export const WHERE_IT_RUNS =
  'The Electron suite runs on a machine where `npx electron --version` works (Electron downloads its binary on install; this one could not).';

/**
 * The Electron binary: $LOOPDECK_ELECTRON, else the one the electron package installed. Read from
 * its path.txt rather than `require('electron')`, which would try to download a missing binary.
 */
export function electronBinary(): string | null {
  const fromEnv = process.env['LOOPDECK_ELECTRON'];
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  const pkg = join(ROOT, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

/** A runner folder with a `reliability` loop on the local host, and the config that follows it. */
export interface ElectronRunner {
  /** The temporary root holding everything below; nothing of the run lives outside it. */
  readonly root: string;
  readonly configPath: string;
  /** The folder Electron is told to use as its userData (the app core's data folder). */
  readonly userData: string;
  write(date: string, name: string, text: string): void;
  append(date: string, name: string, text: string): void;
}

/** Create the throwaway runner folder and config. */
export function createElectronRunner(): ElectronRunner {
  const root = mkdtempSync(join(tmpdir(), 'loopdeck-electron-'));
  const runs = join(root, 'runs');
  mkdirSync(runs);
  const configPath = join(root, 'config.yaml');
  writeFileSync(
    configPath,
    `hosts:\n  runner: { local: true }\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(runs)}\n    phases: [audit, remediate, deliver]\n`,
  );
  const at = (date: string, name: string): string => {
    mkdirSync(join(runs, date), { recursive: true });
    return join(runs, date, name);
  };
  return {
    root,
    configPath,
    userData: join(root, 'user-data'),
    write: (date, name, text) => writeFileSync(at(date, name), text),
    append: (date, name, text) => appendFileSync(at(date, name), text),
  };
}

/** The running app and its console window. */
export interface LaunchedApp {
  readonly app: ElectronApplication;
  readonly window: Page;
}

/**
 * Start the built app on `runner`'s config. Its data goes to the runner's temporary root twice
 * over: `--user-data-dir` (which Electron maps to userData) and XDG_CONFIG_HOME / APPDATA (where
 * userData lies by default); the spec checks where it landed before trusting either.
 */
export async function launchBuiltApp(runner: ElectronRunner): Promise<LaunchedApp> {
  const executablePath = electronBinary();
  if (!executablePath) throw new Error(`Electron's binary is missing (node_modules/electron/dist). ${WHERE_IT_RUNS}`);
  if (!existsSync(join(ROOT, 'out', 'main', 'index.js'))) throw new Error('out/main/index.js is missing: run `npm run build` (or `npm run test:electron`, which builds first).');
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // The dev server URL would point the window elsewhere; RUN_AS_NODE would not start the app.
    if (value !== undefined && key !== 'ELECTRON_RENDERER_URL' && key !== 'ELECTRON_RUN_AS_NODE') env[key] = value;
  }
  env['XDG_CONFIG_HOME'] = join(runner.root, 'xdg-config');
  env['XDG_CACHE_HOME'] = join(runner.root, 'xdg-cache');
  env['APPDATA'] = join(runner.root, 'appdata');
  const app = await _electron.launch({
    executablePath,
    cwd: ROOT,
    env,
    args: [`--user-data-dir=${runner.userData}`, ROOT, '--config', runner.configPath],
    timeout: 60_000,
  });
  const window = await app.firstWindow();
  return { app, window };
}
