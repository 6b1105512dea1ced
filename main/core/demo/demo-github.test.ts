import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeskPr } from '../../../shared/pr-desk';
import { until } from '../../../testing/until';
import type { Problem } from '../../../shared/domain';
import { loadConfig } from '../config/load-config';
import { DeadmanComments } from '../prs/github/deadman-comments';
import { MIGRATIONS } from '../engine/migrations';
import { openCore, type Core } from '../session/core';
import { startDemo, type DemoRunner } from './demo-runner';

// The demo answers as GitHub would: its config has a `github:` section on its loopback stand-in,
// and the core's merge desk lists the demo's PRs with titles and checks, a stale one, an overlap,
// one red after READY, a large one, and merges one through the console.

describe('the demo on its GitHub stand-in', () => {
  let demo: DemoRunner | null = null;
  let core: Core | null = null;
  afterEach(async () => {
    await core?.close();
    await demo?.stop();
    [core, demo] = [null, null];
  });

  it("lists the demo's PRs on the merge desk with titles and checks, one stale, an overlap, one red after READY, and merges one", async () => {
    demo = await startDemo({ migrations: MIGRATIONS });
    const loaded = await loadConfig(demo.configPath);
    if (loaded.state !== 'loaded') throw new Error(`the demo's config: ${loaded.state === 'invalid' ? loaded.error.message : 'missing'}`);
    expect(loaded.config.github?.apiUrl).toBe(demo.githubUrl);
    const c = (core = openCore({ config: loaded.config, dataDir: join(demo.dir, 'data') }));
    await c.engine.poll();
    const desk = c.services.desk;
    const byNumber = (): Map<number, DeskPr> => new Map(desk.list().map((p) => [p.number, p]));
    // The verdicts are read, the PRs asked about: every open PR with its checks.
    await until(
      async () => {
        await desk.pollOnce();
        const prs = byNumber();
        return [81, 88, 90, 91].every((n) => (prs.get(n)?.checks.length ?? 0) > 0) && prs.get(90)?.canWrite === true;
      },
      60_000,
      "the demo's PRs on the desk with their checks",
    );
    const prs = byNumber();
    expect([...prs.values()].every((p) => p.loop === 'reliability' && p.repo === 'acme/radon' && p.title.startsWith('reliability: REL-'))).toBe(true);
    expect(prs.get(90)?.ids).toEqual(expect.arrayContaining(['REL-101', 'REL-102']));
    expect(prs.get(88)?.checks.find((k) => k.name === 'ci/test')?.state).toBe('failing');
    expect(prs.get(90)?.checks.map((k) => [k.name, k.state])).toEqual(expect.arrayContaining([['ci/test', 'passing'], ['e2e/smoke', 'passing']]));
    // Opened on the first night, six days ago: stale (prs.staleAfter is 2 days); last night's are not.
    expect(prs.get(81)?.stale).toBe(true);
    expect([prs.get(90)?.stale, prs.get(91)?.stale]).toEqual([false, false]);
    expect(prs.get(81)?.large).toBe(true);
    expect(prs.get(90)?.overlaps).toEqual([91]);
    expect(prs.get(91)?.redAfterReady).toBe(true);
    expect(prs.get(90)?.redAfterReady).toBe(false);
    expect(prs.get(90)?.next.map((s) => s.text)).toHaveLength(2);
    expect(prs.get(90)?.cycle).toBe(prs.get(90)?.head.replace('reliability/', ''));

    // The merge flow: tick the Next steps, merge the head seen; the PR is then merged.
    desk.nextDone('reliability', 90, 0, 'ops');
    desk.nextDone('reliability', 90, 1, 'ops');
    const sha = prs.get(90)?.headSha ?? '';
    const merge = await desk.merge('reliability', 90, sha, undefined, 'ops');
    expect(merge).toMatchObject({ by: 'ops', sha });
    expect(byNumber().get(90)).toMatchObject({ state: 'merged', merged: { by: 'ops' } });
    // #91 no longer overlaps a PR that is merged.
    expect(byNumber().get(91)?.overlaps).toEqual([]);
  }, 120_000);

  it('comments on its rolling dead-man issue for every phase its nights ended: no dead-man breach, no problem', async () => {
    demo = await startDemo({ migrations: MIGRATIONS });
    const loaded = await loadConfig(demo.configPath);
    if (loaded.state !== 'loaded') throw new Error(`the demo's config: ${loaded.state}`);
    expect(loaded.config.loops.reliability?.deadman).toEqual({ repo: 'acme/radon', label: 'reliability-nightly' });
    const c = (core = openCore({ config: loaded.config, dataDir: join(demo.dir, 'data') }));
    await c.engine.poll();
    const loops = c.engine.snapshot().loops;
    const ended = loops.flatMap((l) => l.cycles.flatMap((cy) => cy.phases.filter((p) => p.endedAt !== null)));
    expect(ended.length).toBeGreaterThan(10);
    const problems: (Problem | null)[] = [];
    const check = new DeadmanComments({ github: loaded.config.github, loops: loaded.config.loops, onProblem: (p) => problems.push(p) });
    try {
      // Every past phase is due (ended more than 30 minutes ago): each is judged against the comments.
      await check.check(loops, new Date());
      expect(problems.filter((p) => p !== null)).toEqual([]);
      expect(check.breaches()).toEqual([]);
      // The same phases judged as if their comments had not come: the issue is there, its comments are what count.
      const late = new DeadmanComments({ github: loaded.config.github, loops: loaded.config.loops, onProblem: () => undefined });
      // Twenty days ago the issue was open, and nothing commented on it.
      const [from, to] = [new Date(Date.now() - 20 * 86_400_000), new Date(Date.now() - 20 * 86_400_000 + 3_600_000)].map((d) => d.toISOString());
      const shifted = loops.map((l) => ({ ...l, cycles: l.cycles.map((cy) => ({ ...cy, phases: cy.phases.map((p) => (p.endedAt ? { ...p, startedAt: from ?? null, endedAt: to ?? null } : p)) })) }));
      await late.check(shifted, new Date());
      expect(late.breaches().length).toBeGreaterThan(0);
      await late.stop();
    } finally {
      await check.stop();
    }
  }, 120_000);

  it("opens a live cycle's PR on the stand-in when its deliver does, and its CI goes green there", async () => {
    demo = await startDemo({ speed: 20, migrations: MIGRATIONS });
    const loaded = await loadConfig(demo.configPath);
    if (loaded.state !== 'loaded') throw new Error(`the demo's config: ${loaded.state}`);
    const c = (core = openCore({ config: loaded.config, dataDir: join(demo.dir, 'data') }));
    const live = async (): Promise<DeskPr | undefined> => {
      await c.engine.poll();
      await c.services.desk.pollOnce();
      return c.services.desk.list().find((p) => p.number === 100);
    };
    // Deliver opens it at 120 s of the cycle and says READY at 150 s (6 s and 7.5 s at 20×).
    await until(async () => (await live()) !== undefined, 60_000, 'the live PR #100 on the desk');
    await until(async () => {
      const pr = await live();
      return pr !== undefined && pr.checks.length > 0 && pr.checks.every((k) => k.state === 'passing');
    }, 60_000, "the live PR #100's checks passing");
    const pr = await live();
    expect(pr).toMatchObject({ state: 'open', stale: false, redAfterReady: false, cycle: new Date().toISOString().slice(0, 10) });
  }, 120_000);
});
