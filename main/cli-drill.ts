import { formatDuration } from './core/config/duration';
import { ask } from './cli-terminal';
import { CliError, CONNECT_TIMEOUT_MS, type Flags } from './cli-args';
import { openEngine } from './cli-common';
import { localUser } from './rpc/local-caller';
import { messageOf } from '../shared/errors';

// `loopdeck drill list` and `loopdeck drill run NAME`: a drill from the config, confirmed by name.

function drillArgs(flags: Flags): Record<string, string> {
  const pairs = (flags.arg ?? []).map((pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`--arg: expected NAME=VALUE, got ${JSON.stringify(pair)}`);
    return [pair.slice(0, eq), pair.slice(eq + 1)] as const;
  });
  // Own keys, each of them: `--arg __proto__=x` assigned would vanish instead of being refused.
  return Object.fromEntries(pairs);
}

export async function drill(flags: Flags, words: readonly string[]): Promise<number> {
  const [verb, name] = words;
  if (verb !== 'list' && !(verb === 'run' && name)) throw new CliError('Usage: loopdeck drill list | loopdeck drill run NAME [--arg k=v] [--yes] [--override] [--json]');
  const core = await openEngine(flags, 'drill');
  const { engine, services } = core;
  try {
    if (verb === 'list') {
      const drills = services.drills.list();
      if (flags.json) console.log(JSON.stringify(drills, null, 2));
      else if (drills.length === 0) console.log('No drills are declared under drills in the config.');
      else for (const d of drills) console.log(`${d.name}  on ${d.host}  timeout ${formatDuration(d.timeoutMs)}  ${Object.entries(d.args).map(([k, v]) => `${k}=${v.join('|')}`).join(' ')}`);
      return 0;
    }
    const drillName = name ?? '';
    await services.hosts.settle(CONNECT_TIMEOUT_MS);
    await engine.poll(); // the guard needs to know which loop phases are running
    let confirmation = flags.yes ? drillName : '';
    if (!flags.yes) {
      if (!process.stdin.isTTY) throw new CliError(`Pass --yes to run drill ${drillName} without a terminal to confirm in.`);
      confirmation = await ask(`Type the drill's name (${drillName}) to run it: `);
    }
    let runId = '';
    services.subscribe((event, payload) => {
      if (event !== 'drill.output') return;
      if (payload.runId === runId) process.stdout.write(payload.text);
    });
    try {
      runId = await services.drills.run({ name: drillName, args: drillArgs(flags), confirm: confirmation, overrideRunningPhase: flags.override ?? false }, localUser());
    } catch (err) {
      throw new CliError(messageOf(err), 1);
    }
    let run = services.drills.runs().find((r) => r.id === runId);
    while (run?.status === 'running') {
      await new Promise((r) => setTimeout(r, 300));
      await engine.poll();
      run = services.drills.runs().find((r) => r.id === runId);
    }
    if (flags.json) console.log(JSON.stringify(run));
    else console.error(`loopdeck: drill ${drillName} ${run?.status} (rc ${run?.rc ?? 'none'}) — log on ${run?.host}: ${run?.logPath}`);
    return run?.rc ?? 1;
  } finally {
    await core.close();
  }
}

/** The morning summary the Review screen copies: the same function on the same state, so both agree. */
