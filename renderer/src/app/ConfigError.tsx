/** Shown when the config file exists but cannot be used: where it is, why, and how to check it. */
export function ConfigError({ path, message }: { path: string; message: string }) {
  return (
    <div className="config-error card" data-testid="config-error" role="alert">
      <h2>The config file could not be used</h2>
      <p>
        <code className="path">{path}</code>
      </p>
      <pre className="mono block error-text">{message}</pre>
      <p>
        Fix the file and save it; Loopdeck reloads it. To list every problem from a terminal, run{' '}
        <code>npx loopdeck check --config {path}</code>.
      </p>
    </div>
  );
}
