import { buildReviewSummary, renderReviewMarkdown } from '../shared/review-summary';
import { messageOf } from '../shared/errors';
import { printSnapshot } from './cli-terminal';
import { CliError, CONNECT_TIMEOUT_MS, type Flags } from './cli-args';
import { openEngine, withState, loadedConfig } from './cli-common';
import { log } from './core/logging/log';
import { checkLogUsage, LogError, logTranscript } from './cli-transcript';

// The verbs that read the config and the runner in one go (`check`, `snapshot`, `review`, `log`,
// `watch`): loaded by cli.ts only when one of them is asked for, so `serve` starts without them.

/** `loopdeck check`: the config loads, and what it holds. */
export async function check(flags: Flags): Promise<number> {
  const loaded = await loadedConfig(flags);
  const c = loaded.config;
  const count = (o: object): number => Object.keys(o).length;
  console.log(
    `${loaded.path}: OK — ${count(c.hosts)} host(s), ${count(c.loops)} loop(s), ${count(c.proxies)} prox(ies), ${count(c.drills)} drill(s).`,
  );
  return 0;
}

/** `loopdeck snapshot`: the whole state once, for a terminal or as JSON. */
export function snapshot(flags: Flags): Promise<number> {
  return withState(flags, 'snapshot', (snap) => (flags.json ? console.log(JSON.stringify(snap, null, 2)) : printSnapshot(snap)));
}

/** `loopdeck review`: the morning review as Markdown (the default) or its model as JSON. */
export function review(flags: Flags): Promise<number> {
  if (flags.markdown && flags.json) throw new CliError('--markdown and --json: pass one of them (the default is --markdown).');
  if (flags.since !== undefined && Number.isNaN(Date.parse(flags.since))) {
    throw new CliError(`--since: expected an ISO time such as 2026-11-30T07:00:00Z, got ${JSON.stringify(flags.since)}`);
  }
  return withState(flags, 'review', (snap) => {
    const summary = buildReviewSummary(snap, { now: Date.parse(snap.takenAt), since: flags.since ?? null });
    if (flags.json) console.log(JSON.stringify(summary, null, 2));
    else process.stdout.write(renderReviewMarkdown(summary));
  });
}

/** `loopdeck log`: a phase transcript's lines or grep hits, after the engine caught up (its index makes a jump one seek). */
export async function logVerb(flags: Flags, words: readonly string[]): Promise<number> {
  try {
    // A usage mistake needs neither the hosts nor the store.
    checkLogUsage(words, flags);
    const core = await openEngine(flags, 'log');
    const { engine, services } = core;
    try {
      await services.hosts.settle(CONNECT_TIMEOUT_MS);
      await engine.poll();
      for (let i = 0; engine.behind() && i < 1000; i++) await engine.poll();
      return await logTranscript(core, words, flags, (text) => process.stdout.write(text));
    } finally {
      await core.close();
    }
  } catch (err) {
    if (err instanceof LogError) throw new CliError(err.message, err.exitCode);
    throw err;
  }
}

/** `loopdeck watch`: follow the runner and print what changes, until Ctrl-C. */
export async function watch(flags: Flags): Promise<number> {
  const core = await openEngine(flags, 'watch');
  const { engine, services } = core;
  services.subscribe((event, payload) => {
    if (flags.json) console.log(JSON.stringify({ at: new Date().toISOString(), event, payload }));
    else if (event === 'loop.changed') {
      const { loop, upserted, removed, deadman } = payload;
      const at = new Date().toISOString();
      for (const c of upserted) console.log(`${at} ${loop} ${c.date} ${c.status}  ${c.phases.map((p) => `${p.name}=${p.status}`).join('  ')}`);
      if (removed.length > 0) console.log(`${at} ${loop} no longer follows ${removed.join(', ')}`);
      if (deadman) console.log(`${at} ${loop} dead-man ${deadman.state}: ${deadman.reason}`);
    } else console.log(`${new Date().toISOString()} ${event}`);
  });
  const finish = new Promise<void>((ok) => {
    process.once('SIGINT', ok);
    process.once('SIGTERM', ok);
  });
  engine.run({
    onError: (err) => {
      log.error('poll failed', err);
      console.error(`loopdeck: poll failed: ${messageOf(err)}`);
    },
  });
  await finish;
  await core.close();
  return 0;
}

