import { deliverEvent } from '../../../shared/contract';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PullRequest } from '../../../shared/domain';
import { Store } from '../store/store';
import { Notifier, type NoticeState } from './notifier';
import { pr } from '../../../testing/notice-fixtures';

// A real SQLite file; no sinks configured beyond the console (events are collected).
const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function notifier(): { n: Notifier; raised: string[] } {
  const store = Store.open(join(mkdtempSync(join(tmpdir(), 'ld-notifier-')), 'loopdeck.db'));
  stores.push(store);
  const raised: string[] = [];
  const n = new Notifier({
    store,
    notify: {},
    now: () => new Date('2026-11-30T07:00:00.000Z'),
    reviewed: () => ({ lastReviewedAt: null, lastReviewedBy: null }),
    emit: (event, payload) =>
      deliverEvent(
        (...[name, p]) => {
          if (name === 'notice.raised') raised.push(p.notice.key);
        },
        event,
        payload,
      ),
  });
  return { n, raised };
}

const state = (prs: readonly PullRequest[]): NoticeState => ({ loops: [], findings: [], prs, hosts: [], capacity: [], drillRuns: [] });

describe('Notifier', () => {
  it('derives the PR list when its owner replaces it, not on every update that hands over the same list', () => {
    const { n, raised } = notifier();
    n.update(true, state([pr(80)])); // the first start's seed: listed, not raised
    expect(n.list().map((x) => x.key)).toEqual(['pr:https://github.com/acme/radon/pull/80:ready']);
    const prs = [pr(80), pr(81)];
    n.update(true, state(prs));
    expect(raised).toEqual(['pr:https://github.com/acme/radon/pull/81:ready']);
    // The same list again (a clock-driven update): nothing in it can be new, so it is not read.
    // Appending to it in place shows that: owners replace the list when a PR changes.
    prs.push(pr(82));
    n.update(true, state(prs));
    expect(raised).toHaveLength(1);
    n.update(true, state([...prs]));
    expect(raised).toEqual(['pr:https://github.com/acme/radon/pull/81:ready', 'pr:https://github.com/acme/radon/pull/82:ready']);
  });
});
