import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import type { ConfigStatus } from '../../../shared/contract';
import { ConfigSchema, type Config } from './schema';
import { messageOf } from '../../../shared/errors';

/** The default config file: `$XDG_CONFIG_HOME/loopdeck/config.yaml`, else `~/.config/loopdeck/config.yaml`. */
export function defaultConfigPath(): string {
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'loopdeck', 'config.yaml');
}

/** The largest config file read: a hand-written config is a few kilobytes. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** A config file that exists but cannot be used; the message names the file, line and key path. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
  ) {
    super(`${path} is not a valid Loopdeck config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** The outcome of loading: a config, or why there is none. */
export type LoadedConfig =
  | { readonly state: 'loaded'; readonly path: string; readonly config: Config }
  | { readonly state: 'missing'; readonly path: string }
  | { readonly state: 'invalid'; readonly path: string; readonly error: ConfigError };

/** The renderer-facing form of a load outcome. */
export function configStatusOf(loaded: LoadedConfig): ConfigStatus {
  if (loaded.state === 'invalid') return { state: 'invalid', path: loaded.path, message: loaded.error.message };
  return { state: loaded.state, path: loaded.path };
}

function lineOf(doc: Document, counter: LineCounter, path: readonly PropertyKey[]): number | null {
  // Walk down as far as the document goes: an issue about a missing key points at its parent.
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth) as unknown[], true);
    if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
  }
  return null;
}

/** Expand `~` and resolve a relative path against the config file's folder. */
export function resolveConfigPath(configFile: string, p: string): string {
  if (p === '~' || p.startsWith('~/')) return join(homedir(), p.slice(1));
  return isAbsolute(p) ? p : resolve(dirname(configFile), p);
}

function resolvePaths(file: string, cfg: Config): Config {
  const local = (host: string): boolean => {
    const h = cfg.hosts[host];
    return h !== undefined && 'local' in h;
  };
  const loops = Object.fromEntries(
    Object.entries(cfg.loops).map(([name, loop]) => {
      // Paths on an SSH host are the host's business; only local paths are resolved here.
      if (!local(loop.host)) return [name, loop];
      return [
        name,
        {
          ...loop,
          runs: resolveConfigPath(file, loop.runs),
          dir: loop.dir === undefined ? undefined : resolveConfigPath(file, loop.dir),
          deliverRecord: loop.deliverRecord === undefined ? undefined : resolveConfigPath(file, loop.deliverRecord),
        },
      ];
    }),
  );
  return { ...cfg, loops };
}

/** Parse and validate config text; throws ConfigError naming `file`, the line and the key path. */
export function parseConfig(file: string, text: string): Config {
  const counter = new LineCounter();
  const doc = parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => {
        const at = counter.linePos(e.pos[0]);
        return `${file}:${at.line}:${at.col}: YAML syntax: ${e.message.split('\n')[0]}`;
      }),
    );
  }
  let raw: unknown;
  try {
    // yaml refuses a document whose aliases expand past maxAliasCount (a "billion laughs" bomb)
    // with a ReferenceError: that is a bad config, named as such, not a crash.
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    throw new ConfigError(file, [`${file}: cannot be read as YAML: ${messageOf(err).split('\n')[0]}`]);
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      file,
      parsed.error.issues.map((issue) => {
        const line = lineOf(doc, counter, issue.path);
        const key = issue.path.map(String).join('.') || '(top level)';
        return `${file}${line ? `:${line}` : ''}: ${key}: ${issue.message}`;
      }),
    );
  }
  return resolvePaths(file, parsed.data);
}

/** Read and validate the config file; a missing file is a state (first run), not an error. */
export async function loadConfig(file: string): Promise<LoadedConfig> {
  let text: string;
  try {
    const st = await stat(file);
    if (st.isFile() && st.size > MAX_CONFIG_BYTES) {
      const error = new ConfigError(file, [`${file}: ${st.size} bytes is more than a config may be (${MAX_CONFIG_BYTES}); not read.`]);
      return { state: 'invalid', path: file, error };
    }
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing', path: file };
    const error = new ConfigError(file, [`${file}: cannot be read: ${messageOf(err)}`]);
    return { state: 'invalid', path: file, error };
  }
  try {
    return { state: 'loaded', path: file, config: parseConfig(file, text) };
  } catch (err) {
    const error = err instanceof ConfigError ? err : new ConfigError(file, [`${file}: ${messageOf(err).split('\n')[0]}`]);
    return { state: 'invalid', path: file, error };
  }
}
