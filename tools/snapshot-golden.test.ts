import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopdeck } from '../testing/cli-run';
import { GOLDEN_NOW, writeGoldenRunner } from '../testing/golden-runner';

// What `snapshot --json` and `review --markdown` print for a runner with every kind of evidence,
// compared with the output kept beside this test: a change that was not meant to change what
// Loopdeck derives fails here. `LOOPDECK_UPDATE_GOLDEN=1` writes the files anew (review the diff).
const GOLDEN = join(import.meta.dirname, 'golden');
const update = process.env.LOOPDECK_UPDATE_GOLDEN === '1';

/** The output with the fixture's temporary folder (different each run) written as <root>. */
const normalise = (text: string, root: string): string => text.split(root).join('<root>');

function compare(name: string, actual: string): void {
  const file = join(GOLDEN, name);
  if (update || !existsSync(file)) writeFileSync(file, actual);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('golden output', () => {
  it('snapshot --json and review --markdown print what they printed before, for every kind of evidence', async () => {
    const fx = writeGoldenRunner();
    const flags = ['--config', fx.configPath, '--data', fx.dataDir, '--now', GOLDEN_NOW];
    const snap = await loopdeck('snapshot', ...flags, '--json');
    expect(snap.stderr).toBe('');
    compare('snapshot.json', normalise(snap.stdout, fx.root));
    // A second run on the same data folder resumes from what the first stored: the same state.
    const again = await loopdeck('snapshot', ...flags, '--json');
    expect(normalise(again.stdout, fx.root)).toBe(normalise(snap.stdout, fx.root));
    const review = await loopdeck('review', ...flags, '--since', '2026-08-22T00:00:00Z', '--markdown');
    compare('review.md', normalise(review.stdout, fx.root));
  }, 60_000);
});
