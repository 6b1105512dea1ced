/**
 * The one rule for secrets in the config: a value `env:NAME` is read from the environment
 * variable NAME when it is used (the config file then holds no secret), any other value is the
 * secret itself. The secret is never logged, published or saved; messages name the key and the
 * variable, never the value.
 */
export type SecretFrom =
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'literal' };

/** A config value written `env:NAME`: the name of a variable (letters, digits, `_`, not starting with a digit). */
const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

/** Where a secret config value comes from; `env:` followed by anything but a variable name is a mistake (null). */
export function secretSource(value: string): SecretFrom | null {
  if (!value.startsWith('env:')) return { kind: 'literal' };
  const m = ENV_REF.exec(value.trim());
  return m?.[1] ? { kind: 'env', name: m[1] } : null;
}

/** A secret's value: the variable's for `env:NAME` (an error naming `key` and NAME when unset or empty), else the value itself. */
export function readSecret(key: string, value: string, env: NodeJS.ProcessEnv): { readonly value: string } | { readonly error: string } {
  const source = secretSource(value);
  if (source === null) return { error: `${key}: expected "env:NAME" with NAME an environment variable, or the value itself` };
  if (source.kind === 'literal') return { value };
  const v = env[source.name]?.trim();
  if (!v) return { error: `${key} is "env:${source.name}", but the environment variable ${source.name} is not set (or empty) in Loopdeck's environment` };
  return { value: v };
}
