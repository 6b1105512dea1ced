import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_NEXT_ITEM_CHARS, MAX_NEXT_ITEMS, nextSection } from './next-section';

// Bodies shaped as the loop's PR formatter writes them (reliability-loop-skill §Pull request
// output: Issue discovered, What was done to fix it, Next), and others a person may write.

const three = (next: string): string => `## Issue discovered\n- **Scanner**: the timer wrote no health row.\n\n## What was done to fix it\n- **Scanner**: it writes one per run.\n\n## Next\n${next}\n`;

describe('nextSection', () => {
  it.each([
    ['bullets, bold component, one action each', three('- **Control plane**: run `bootstrap-control-plane.sh` install-copy before merge.\n- **IB**: rotate the gateway password.'), ['Control plane: run `bootstrap-control-plane.sh` install-copy before merge.', 'IB: rotate the gateway password.']],
    ['a single plain sentence', three('Run the migration by hand on the Mac mini.'), ['Run the migration by hand on the Mac mini.']],
    ['a bullet continued on the next line', three('- Rotate the key\n  in the vault.'), ['Rotate the key in the vault.']],
    ['the formatter saying nothing is left', three('Fixed with green deployment'), []],
    ['the zero-finding night', three('No deploy needed.'), []],
    ['a heading "# Next:" then another section after it', '# Next:\n1. Restart the scanner.\n\n# Notes\n- not an action', ['Restart the scanner.']],
    ['a setext heading', 'Next\n----\n* Drain the fleet first.\n', ['Drain the fleet first.']],
    ['a bold label', '**Next**\n- Merge after 09:00.\n', ['Merge after 09:00.']],
    ['CRLF line ends', '## Next\r\n- One.\r\n- Two.\r\n', ['One.', 'Two.']],
  ])('reads %s', (_what, body, want) => {
    expect(nextSection(body)).toEqual(want);
  });

  it('is null for a body without a Next section, and for no body', () => {
    expect(nextSection('Please pull these awesome changes in!')).toBeNull();
    expect(nextSection('## Next steps are in the issue')).toBeNull();
    expect(nextSection(null)).toBeNull();
    expect(nextSection('')).toBeNull();
  });

  it('keeps a bounded number of bounded actions, and says how many more there are', () => {
    const many = three(Array.from({ length: 40 }, (_, i) => `- action ${i} ${'x'.repeat(i === 0 ? 5000 : 10)}`).join('\n'));
    const got = nextSection(many) ?? [];
    expect(got).toHaveLength(MAX_NEXT_ITEMS);
    expect(got[0]?.length).toBe(MAX_NEXT_ITEM_CHARS);
    expect(got[0]?.endsWith('…')).toBe(true);
    expect(got.at(-1)).toBe(`… and ${40 - MAX_NEXT_ITEMS + 1} more in the PR's Next section`);
  });

  it('never throws and stays bounded on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), fc.string({ maxLength: 500 }), (before, after) => {
        for (const body of [before, `${before}\n## Next\n${after}`]) {
          const got = nextSection(body);
          if (got === null) continue;
          expect(got.length).toBeLessThanOrEqual(MAX_NEXT_ITEMS);
          for (const item of got) expect(item.length).toBeLessThanOrEqual(MAX_NEXT_ITEM_CHARS + 60);
        }
      }),
    );
  });
});
