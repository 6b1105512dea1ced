import { describe, expect, it } from 'vitest';
import { preflightCheck, type Preflight } from '../../../../shared/preflight';
import { emptyInput } from '../../../../testing/notice-fixtures';
import { ruleOverrides } from '../notify-config';
import { deriveNotices } from './rules';

const NOW = new Date('2026-11-30T23:00:00.000Z');

const preflight = (state: Preflight['state'], fireAt = '2026-12-01T00:00:00.000Z'): Preflight => ({
  loop: 'reliability',
  fireAt,
  state,
  checks:
    state === 'at-risk'
      ? [preflightCheck('host', 'ok', 'host runner is connected'), preflightCheck('disk', 'fail', 'clone /srv/clone has 512 KB free on /srv (needs 2 GB, preflightDisk)'), preflightCheck('models', 'fail', 'model gpt-oss-120b not loaded on crossbar (loaded: qwen3-32b)')]
      : [preflightCheck('host', state === 'ready' ? 'ok' : 'unknown', 'host runner is still connecting')],
  checkedAt: NOW.toISOString(),
});

describe('the pre-flight notice', () => {
  it('raises an at-risk pre-flight at priority 1 under the key of its fire, naming each failing check', () => {
    const drafts = deriveNotices(emptyInput(NOW, { preflight: [preflight('at-risk')] }));
    expect(drafts).toEqual([
      {
        key: 'preflight:reliability:2026-12-01T00:00:00.000Z',
        priority: 1,
        source: 'loop:reliability',
        title: "reliability: tonight's run is at risk",
        message:
          'Pre-flight before the 2026-12-01T00:00:00.000Z fire of reliability: disk: clone /srv/clone has 512 KB free on /srv (needs 2 GB, preflightDisk); models: model gpt-oss-120b not loaded on crossbar (loaded: qwen3-32b).',
        url: 'http://127.0.0.1:7777/#/review',
        urlTitle: 'The Review in Loopdeck',
      },
    ]);
  });

  it('raises nothing for a ready or unknown night, a new key for the next fire, and takes notify.rules', () => {
    expect(deriveNotices(emptyInput(NOW, { preflight: [preflight('ready'), { ...preflight('unknown'), loop: 'testing' }] }))).toEqual([]);
    const next = deriveNotices(emptyInput(NOW, { preflight: [preflight('at-risk', '2026-12-02T00:00:00.000Z')] }));
    expect(next.map((d) => d.key)).toEqual(['preflight:reliability:2026-12-02T00:00:00.000Z']);
    const quiet = deriveNotices(emptyInput(NOW, { preflight: [preflight('at-risk')], rules: ruleOverrides({ 'preflight-at-risk': 0 }).rules }));
    expect(quiet[0]?.priority).toBe(0);
  });
});
