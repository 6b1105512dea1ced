import { PREFLIGHT_CHECK_LABEL, preflightStateText, type Preflight } from '../shared/preflight';
import { CliError, CONNECT_TIMEOUT_MS, type Flags } from './cli-args';
import { openEngine } from './cli-common';
import { logSafe } from './core/logging/log-text';

// `loopdeck preflight [LOOP] [--json]`: the pre-flight of one loop or all of them, now, whatever
// their lead: what the engine knows (one full read first: cycles, deliver records, the fleet,
// drills) and one script a host. Exits 1 when any loop is at risk.

const MARK = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', unknown: '?   ' } as const;

function print(p: Preflight): void {
  console.log(logSafe(`${p.loop}: ${preflightStateText(p.state)} for the ${p.fireAt} fire (checked ${p.checkedAt})`));
  for (const c of p.checks) console.log(logSafe(`  ${MARK[c.status]} ${PREFLIGHT_CHECK_LABEL[c.name]}: ${c.detail}`));
}

export async function preflight(flags: Flags, loop: string | undefined): Promise<number> {
  const core = await openEngine(flags, 'preflight');
  const { engine, services } = core;
  try {
    const loops = services.preflight.loops();
    if (loop !== undefined && !loops.includes(loop)) throw new CliError(`No loop named ${loop} in the config (loops: ${loops.join(', ') || 'none'}).`);
    await services.hosts.settle(CONNECT_TIMEOUT_MS);
    await services.capacity.pollOnce();
    await engine.poll();
    for (let i = 0; engine.behind() && i < 1000; i++) await engine.poll();
    const results = await services.preflight.run(loop === undefined ? loops : [loop]);
    if (flags.json) console.log(JSON.stringify(results, null, 2));
    else for (const p of results) print(p);
    return results.some((p) => p.state === 'at-risk') ? 1 : 0;
  } finally {
    await core.close();
  }
}
