import { shellQuote } from '../sources/remote-shell';

/** Everything the launch script needs; every value is quoted into the script, never spliced. */
export interface LaunchSpec {
  readonly runId: string;
  readonly drill: string;
  /** The command from the config, run by `sh -c` on the host. */
  readonly command: string;
  readonly cwd: string | null;
  readonly timeoutSeconds: number;
  readonly graceSeconds: number;
  /** Argument values, already checked against the config's allowed values. */
  readonly args: Readonly<Record<string, string>>;
}

/** Names of run ids and drills that may appear in host paths. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * The detached wrapper, run by `nohup sh -c "$LD_WRAPPER"`: it starts the command in its own
 * process group (setsid on Linux, perl's setpgrp on macOS, bash job control as a last resort),
 * arms a watchdog for the timeout, waits, and writes the outcome in the rc format ending in DONE.
 * Everything it needs arrives in environment variables, so nothing is quoted twice.
 */
const WRAPPER = `
cd "$LD_DIR" || exit 1
if [ -n "$LD_CWD" ]; then
  if ! cd "$LD_CWD" 2>>"$LD_DIR/out.log"; then
    echo "loopdeck: cwd $LD_CWD does not exist on this host" >>"$LD_DIR/out.log"
    rm -rf "$LD_LOCK"; printf 'drill_rc=127\\nDONE\\n' >>"$LD_DIR/rc"; exit 0
  fi
fi
if command -v setsid >/dev/null 2>&1; then
  setsid sh -c "$LOOPDECK_COMMAND" >>"$LD_DIR/out.log" 2>&1 </dev/null &
elif command -v perl >/dev/null 2>&1; then
  perl -e 'setpgrp(0,0); exec @ARGV' sh -c "$LOOPDECK_COMMAND" >>"$LD_DIR/out.log" 2>&1 </dev/null &
else
  bash -c 'set -m; sh -c "$LOOPDECK_COMMAND" & wait $!' >>"$LD_DIR/out.log" 2>&1 </dev/null &
fi
job=$!
echo "$job" >"$LD_DIR/pgid"
# A cancel that came before the pgid file was written left its mark: act on it now.
[ -f "$LD_DIR/cancelled" ] && kill -s TERM -- "-$job" 2>/dev/null
( sleep "$LD_TIMEOUT"; echo timeout >"$LD_DIR/timeout"; kill -s TERM -- "-$job" 2>/dev/null; sleep "$LD_GRACE"; kill -s KILL -- "-$job" 2>/dev/null ) >/dev/null 2>&1 &
dog=$!
wait "$job"; rc=$?
kill "$dog" 2>/dev/null
# The lock goes before DONE: whoever sees the run done may start the drill again at once.
rm -rf "$LD_LOCK"
printf 'drill_rc=%s\\nDONE\\n' "$rc" >>"$LD_DIR/rc"
`;

/** The script that takes the drill's lock and starts the wrapper; it prints `STARTED <dir>` or `LOCKED <run>`. */
export function launchScript(spec: LaunchSpec): string {
  if (!SAFE_NAME.test(spec.runId) || !SAFE_NAME.test(spec.drill)) throw new Error('Unsafe drill or run name.');
  const env = Object.entries(spec.args).map(([k, v]) => {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(k)) throw new Error(`Unsafe argument name ${JSON.stringify(k)}.`);
    return `LOOPDECK_ARG_${k.toUpperCase()}=${shellQuote(v)}; export LOOPDECK_ARG_${k.toUpperCase()}`;
  });
  return [
    'base="$HOME/.loopdeck/drills"',
    `dir="$base/${spec.runId}"; lock="$base/locks/${spec.drill}.lock"`,
    'mkdir -p "$base/locks" "$dir" || exit 2',
    // mkdir is atomic: the lock is a folder. A lock whose wrapper is gone is stale and is taken over.
    'if ! mkdir "$lock" 2>/dev/null; then',
    '  old=$(cat "$lock/pid" 2>/dev/null)',
    '  if [ -n "$old" ] && kill -0 "$old" 2>/dev/null; then echo "LOCKED $(cat "$lock/run" 2>/dev/null)"; rm -rf "$dir"; exit 0; fi',
    '  rm -rf "$lock"; mkdir "$lock" || { echo "LOCKED"; rm -rf "$dir"; exit 0; }',
    '  echo "STALE $old"',
    'fi',
    `echo ${shellQuote(spec.runId)} >"$lock/run"`,
    `printf 'drill_rc=\\n' >"$dir/rc"; : >"$dir/out.log"`,
    `LOOPDECK_COMMAND=${shellQuote(spec.command)}; export LOOPDECK_COMMAND`,
    `LD_WRAPPER=${shellQuote(WRAPPER)}`,
    `LD_DIR="$dir"; LD_LOCK="$lock"; LD_CWD=${shellQuote(spec.cwd ?? '')}; LD_TIMEOUT=${spec.timeoutSeconds}; LD_GRACE=${spec.graceSeconds}`,
    'export LD_DIR LD_LOCK LD_CWD LD_TIMEOUT LD_GRACE',
    ...env,
    'nohup sh -c "$LD_WRAPPER" >/dev/null 2>&1 </dev/null &',
    'echo $! >"$dir/wrapper.pid"; echo $! >"$lock/pid"',
    'echo "STARTED $dir"',
  ].join('\n');
}

/** The script that reports a run's state: the log's size, the rc file, markers, and whether the wrapper lives. */
export function statusScript(dir: string): string {
  const d = shellQuote(dir);
  return [
    `cd ${d} 2>/dev/null || { echo GONE; exit 0; }`,
    // Liveness first: a wrapper found gone has already written all it ever will.
    'kill -0 "$(cat wrapper.pid 2>/dev/null)" 2>/dev/null && echo ALIVE',
    'echo "SIZE $(wc -c <out.log | tr -d " ")"',
    'cat rc 2>/dev/null',
    '[ -f timeout ] && echo MARK_TIMEOUT',
    '[ -f cancelled ] && echo MARK_CANCELLED',
    'exit 0',
  ].join('\n');
}

/** SIGTERM the run's process group, then SIGKILL after the grace period (detached, so it outlives us). */
export function cancelScript(dir: string, graceSeconds: number): string {
  const d = shellQuote(dir);
  return [
    `cd ${d} 2>/dev/null || exit 0`,
    "grep -q '^DONE' rc 2>/dev/null && exit 0",
    // The mark comes first: a wrapper that has not written pgid yet finds it once it has.
    'echo cancelled >cancelled',
    `i=0; while [ ! -s pgid ] && [ $i -lt 50 ] && ! grep -q '^DONE' rc 2>/dev/null; do sleep 0.1 2>/dev/null || sleep 1; i=$((i + 1)); done`,
    'pg=$(cat pgid 2>/dev/null); [ -n "$pg" ] || { echo SIGNALLED; exit 0; }',
    'kill -s TERM -- "-$pg" 2>/dev/null',
    `nohup sh -c 'sleep ${graceSeconds}; kill -s KILL -- "-$0" 2>/dev/null' "$pg" >/dev/null 2>&1 </dev/null &`,
    'echo SIGNALLED',
  ].join('\n');
}

/** What `statusScript` printed. */
export interface RunProbe {
  readonly gone: boolean;
  readonly size: number;
  readonly done: boolean;
  readonly rc: number | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly alive: boolean;
}

/** Parse the output of `statusScript`. */
export function parseProbe(out: string): RunProbe {
  const lines = out.split('\n').map((l) => l.trim());
  let rc: number | null = null;
  for (const l of lines) {
    const m = /^drill_rc=(-?\d+)$/.exec(l);
    if (m) rc = Number(m[1]);
  }
  const size = Number(/^SIZE (\d+)$/m.exec(out)?.[1] ?? 0);
  return {
    gone: lines.includes('GONE'),
    size,
    done: lines.includes('DONE'),
    rc,
    timedOut: lines.includes('MARK_TIMEOUT'),
    cancelled: lines.includes('MARK_CANCELLED'),
    alive: lines.includes('ALIVE'),
  };
}
