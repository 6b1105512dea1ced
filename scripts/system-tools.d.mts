// Types of system-tools.mjs, for the TypeScript test helpers that read its rules.

/** A system tool `npm test` needs: found by `env` (override) else `path`, or by `command` on PATH. */
export interface SystemTool {
  readonly name: string;
  /** The Debian package that provides it. */
  readonly package: string;
  readonly env?: string;
  readonly path?: string;
  readonly command?: string;
  /** Which tests need it, for the README and the message. */
  readonly usedBy: string;
}

/** A tool looked up: `found` is the file, or null with `why`. */
export interface ToolLookup {
  readonly name: string;
  readonly package: string;
  readonly found: string | null;
  /** Its override variable chose the path. */
  readonly overridden: boolean;
  readonly why?: string;
}

/** Every tool, its Debian package and where it is looked for. */
export const SYSTEM_TOOLS: readonly SystemTool[];
/** What the tests run for a tool: the override variable's value, else the default path, else the bare command. */
export function toolPath(name: string, env?: NodeJS.ProcessEnv): string;
/** The first executable `command` in the folders of `pathVar`, or null. */
export function onPath(command: string, pathVar: string | undefined): string | null;
/** Look a tool up as the tests will. */
export function findTool(name: string, env?: NodeJS.ProcessEnv): ToolLookup;
/** Every tool that cannot be found under `env`. */
export function missingTools(env?: NodeJS.ProcessEnv): ToolLookup[];
/** The Debian packages that provide `missing`, each once. */
export function packagesFor(missing: readonly ToolLookup[]): string[];
/** The one message naming each missing tool and the apt-get line. */
export function missingMessage(missing: readonly ToolLookup[], options?: { readonly root?: boolean }): string;
