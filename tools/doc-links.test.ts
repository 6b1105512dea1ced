import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** README.md and every page under docs/. */
function pages(): string[] {
  const out = [join(root, 'README.md')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.md')) out.push(p);
    }
  };
  walk(join(root, 'docs'));
  return out;
}

/** GitHub's anchor of a heading. */
const slug = (heading: string): string => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

/** The local links of a page that lead nowhere: a missing file, or a heading it does not have. */
function brokenLinks(page: string): string[] {
  const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
  const broken: string[] = [];
  for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    const file = path ? resolve(dirname(page), path) : page;
    if (!existsSync(file)) broken.push(`${target} (no such file)`);
    else if (anchor && file.endsWith('.md') && ![...readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].some((m) => slug(m[1] ?? '') === anchor)) broken.push(`${target} (no such heading)`);
  }
  return broken;
}

describe('the README and docs/', () => {
  it('link only to files and headings that exist', () => {
    const found = pages().flatMap((p) => brokenLinks(p).map((b) => `${p.slice(root.length)}: ${b}`));
    expect(found).toEqual([]);
  });

  it('keep the README short: what it is, the commands, the demo, where to go next', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });
});
