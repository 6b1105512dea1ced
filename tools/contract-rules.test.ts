import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceManual } from '../testing/reference-manual';
import { CONTRACT_KINDS, CONTRACT_RULE } from '../shared/contract-breach';

const flat = (s: string): string => s.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

describe('the Broken contract rules', () => {
  it('quote the loop\'s manual: each sentence (its parts, where it is cut with …) is in the manual as written', () => {
    // A sentence may start a clause of the manual's with its capital letter; the rest is as written.
    const manual = flat(referenceManual()).toLowerCase();
    const missing = CONTRACT_KINDS.flatMap((kind) => CONTRACT_RULE[kind].split(' … ').filter((part) => !manual.includes(flat(part).replace(/\.$/, '').toLowerCase())).map((part) => `${kind}: ${part}`));
    expect(missing).toEqual([]);
  });

  it('are listed in the docs with the same sentence, every kind once', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'guide', 'broken-contract.md'), 'utf8');
    for (const kind of CONTRACT_KINDS) {
      const row = doc.split('\n').filter((l) => l.startsWith(`| \`${kind}\` |`));
      expect(row, kind).toHaveLength(1);
      expect(row[0]).toContain(`“${CONTRACT_RULE[kind]}”`);
    }
  });
});

