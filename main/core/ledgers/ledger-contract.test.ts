import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContractBreachSchema } from '../../../shared/contract-breach';
import { parseConfig } from '../config/load-config';
import { LocalSource } from '../sources/local-source';
import { Store } from '../store/store';
import { LedgerFollower } from './ledger-follower';

// Ledgers shaped as the loop's manual writes them (FORMATS.md §3), each test breaking exactly one
// rule of it; read through a real follower, a local source and a store, from real files.

const FINDINGS = '| ID | Sev | Category | Where | Finding |\n|----|-----|----------|-------|---------|\n';
const BACKLOG = '| ID | Findings | Sev | Acceptance criteria |\n|----|----------|-----|---------------------|\n';

const ANCHORS = 'Audited through: 3f2a9c1 on 2026-08-22 — 2 new findings\nAudited through: 9be41d07 on 2026-08-23 — 1 new findings\n';
const DAY_22 = `## Delta audit 2026-08-22

### Findings
${FINDINGS}| R-101 | P0 | safety | scripts/exit_orders.py:88 | exit order placed without halt check |
| R-102 | P1 | error handling | web/lib/quote.ts:12 | fallback swallows 503 |

### Backlog
${BACKLOG}| REL-050 | R-101 | P0 | kill the halt service mid-order: no order leaves |
| REL-051 | R-102 | P1 | inject a 503: the fallback reports it |
`;
const DAY_23 = `
## Delta audit 2026-08-23

${FINDINGS}| R-103 | P0 | state | daemon/state.py:40 | torn JSON from concurrent writers |

${BACKLOG}| REL-052 | R-103 | P0 | two writers at once: the reader never sees half a file |
`;
const DAY_24 = `
## Delta audit 2026-08-24

${FINDINGS}| R-104 | P2 | observability | cloud/x.timer:1 | timer has no health row |
`;

const audit = (anchors = ANCHORS, day22 = DAY_22, day23 = DAY_23): string => `# Reliability audit\n\n## Audit ledger\n${anchors}\n${day22}${day23}`;

const LOG_ROWS = `| REL-050 | 2026-08-22 | BLOCKED | 1/0 | halt service mock missing |
| REL-051 | 2026-08-22 | DONE | 2/2 | |
| REL-050 | 2026-08-23 | DONE | 1/1 | mock added |
`;
const log = (rows = LOG_ROWS, lessons = '- 2026-08-23 (remediate): run the full gate BEFORE the drills.\n'): string =>
  `# Reliability log\n\n| ID | Date | Outcome | Red/Green | Notes |\n|----|------|---------|-----------|-------|\n${rows}\n## Lessons\n${lessons}`;

/** The 1-based line of the first line of `text` containing `needle`. */
function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`${JSON.stringify(needle)} is not in the ledger`);
  return i + 1;
}

function fixture(auditText = audit(), logText = log()) {
  const clone = mkdtempSync(join(tmpdir(), 'ld-ledger-contract-'));
  const files = { audit: join(clone, 'RELIABILITY_AUDIT.md'), log: join(clone, 'RELIABILITY_LOG.md') };
  writeFileSync(files.audit, auditText);
  writeFileSync(files.log, logText);
  const cfg = parseConfig(
    join(clone, 'c.yaml'),
    `hosts: { r: { local: true } }\nloops: { rel: { host: r, runs: ${JSON.stringify(join(clone, 'runs'))}, dir: ${JSON.stringify(clone)}, ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md } } }\n`,
  );
  const store = Store.open(join(clone, 'loopdeck.db'));
  const follower = new LedgerFollower('rel', cfg.loops.rel!, new LocalSource('r'), store);
  return { files, follower, store };
}

const at = (hh: number): Date => new Date(`2026-08-24T${String(hh).padStart(2, '0')}:00:00Z`);

describe('the rules a loop\'s ledgers keep', () => {
  it('a night that inserts its anchor line, appends its section, a log row and a lesson breaks no rule', async () => {
    const { files, follower, store } = fixture();
    await follower.poll(at(1));
    expect(follower.contractBreaches()).toEqual([]);

    // The next night, written the way the audit phase writes: its anchor line added at the end of
    // the audit ledger (so every later byte moves: read again), its section appended at the end.
    writeFileSync(files.audit, audit(`${ANCHORS}Audited through: 5d1e0aa on 2026-08-24 — 1 new findings\n`, DAY_22, DAY_23 + DAY_24));
    writeFileSync(files.log, log(`${LOG_ROWS}| REL-052 | 2026-08-24 | DONE | 3/3 | |\n`, '- 2026-08-23 (remediate): run the full gate BEFORE the drills.\n- 2026-08-24 (audit): grep the class.\n'));
    await follower.poll(at(2));
    expect(follower.ledgers.findings.map((f) => f.id)).toEqual(['R-101', 'R-102', 'R-103', 'R-104']);
    expect(follower.ledgers.backlog.find((b) => b.id === 'REL-052')?.status).toBe('done');
    expect(follower.contractBreaches()).toEqual([]);
    store.close();
  });

  it('ledger-rewritten: a log row changed after it was read names the log and that line, is kept, and the log is read again', async () => {
    const { files, follower, store } = fixture();
    await follower.poll(at(1));
    const rewritten = log(LOG_ROWS.replace('| BLOCKED | 1/0 | halt service mock missing |', '| DONE | 1/1 | |'));
    writeFileSync(files.log, rewritten);
    await follower.poll(at(2));

    const line = lineOf(rewritten, '| REL-050 | 2026-08-22 |');
    const breaches = follower.contractBreaches();
    expect(breaches).toEqual([
      {
        kind: 'ledger-rewritten',
        loop: 'rel',
        date: null,
        phase: null,
        id: `RELIABILITY_LOG.md:${line}`,
        detail: expect.stringMatching(/^RELIABILITY_LOG\.md was rewritten: line 5 .*differs from what was read before, in an append-only ledger; it was read again$/),
        since: at(2).toISOString(),
        evidence: { file: files.log, line, url: null },
      },
    ]);
    expect(() => breaches.map((b) => ContractBreachSchema.parse(b))).not.toThrow();
    // Read again: REL-050's first outcome is what the log says now.
    expect(follower.ledgers.backlog.find((b) => b.id === 'REL-050')?.outcomes.map((o) => o.outcome)).toEqual(['DONE', 'DONE']);
    // Kept on the next polls, with the time it was first noticed.
    await follower.poll(at(3));
    writeFileSync(files.log, `${rewritten}- 2026-08-24 (audit): appended, not rewritten.\n`);
    await follower.poll(at(4));
    expect(follower.contractBreaches()).toEqual(breaches);
    store.close();
  });

  it('ledger-rewritten: a log row removed is named where it was', async () => {
    const { files, follower, store } = fixture();
    await follower.poll(at(1));
    const line = lineOf(log(), 'mock added');
    writeFileSync(files.log, log(LOG_ROWS.replace('| REL-050 | 2026-08-23 | DONE | 1/1 | mock added |\n', '')));
    await follower.poll(at(2));
    expect(follower.contractBreaches()).toMatchObject([
      { kind: 'ledger-rewritten', detail: expect.stringContaining(`the line read before as line ${line} (under "Reliability log") is gone`), evidence: { file: files.log, line } },
    ]);
    store.close();
  });

  it('ledger-rewritten: a frozen audit section changed, or grown, is named at its first changed line; the last section may grow', async () => {
    const { files, follower, store } = fixture();
    await follower.poll(at(1));
    // Appended to the last section, through a replaced file (temp + rename): not a rewrite.
    const grown = audit(ANCHORS, DAY_22, `${DAY_23}| REL-053 | R-103 | P1 | a second task for the torn writes |\n`);
    writeFileSync(`${files.audit}.tmp`, grown);
    renameSync(`${files.audit}.tmp`, files.audit);
    await follower.poll(at(2));
    expect(follower.ledgers.backlog.map((b) => b.id)).toContain('REL-053');
    expect(follower.contractBreaches()).toEqual([]);

    // An earlier section's finding reworded while the next night's section is appended.
    const edited = audit(ANCHORS, DAY_22.replace('fallback swallows 503', 'fallback swallows 502 and 503'), `${DAY_23}| REL-053 | R-103 | P1 | a second task for the torn writes |\n${DAY_24}`);
    writeFileSync(files.audit, edited);
    await follower.poll(at(3));
    const line = lineOf(edited, '| R-102 |');
    expect(follower.contractBreaches()).toMatchObject([
      { kind: 'ledger-rewritten', date: '2026-08-22', id: `RELIABILITY_AUDIT.md:${line}`, since: at(3).toISOString(), evidence: { file: files.audit, line } },
    ]);
    expect(follower.ledgers.findings.find((f) => f.id === 'R-102')?.text).toBe('fallback swallows 502 and 503');
    store.close();
  });

  it('ledger-rewritten: a row appended to an earlier audit section, not the last, is named at that row', async () => {
    const { files, follower, store } = fixture();
    await follower.poll(at(1));
    const added = audit(ANCHORS, `${DAY_22}| REL-051a | R-102 | P1 | a late task for the 503 |\n`, DAY_23);
    writeFileSync(files.audit, added);
    await follower.poll(at(2));
    const line = lineOf(added, 'REL-051a');
    expect(follower.contractBreaches()).toMatchObject([{ kind: 'ledger-rewritten', date: '2026-08-22', detail: expect.stringContaining(`line ${line} (under "Delta audit 2026-08-22") was added`), evidence: { line } }]);
    store.close();
  });

  it('duplicate-id: the same R-### on two rows names both lines, the repeat as evidence', async () => {
    const text = audit(ANCHORS, DAY_22, DAY_23.replace('| R-103 | P0 | state |', '| R-102 | P0 | state |').replace('| REL-052 | R-103 |', '| REL-052 | R-102 |'));
    const { files, follower, store } = fixture(text);
    await follower.poll(at(1));
    const first = lineOf(text, '| R-102 | P1 |');
    const again = lineOf(text, '| R-102 | P0 |');
    expect(follower.contractBreaches()).toEqual([
      {
        kind: 'duplicate-id',
        loop: 'rel',
        date: '2026-08-23',
        phase: null,
        id: 'R-102',
        detail: `R-102 is on line ${first} of RELIABILITY_AUDIT.md and again on line ${again} of RELIABILITY_AUDIT.md; only the first is read`,
        since: '2026-08-23',
        evidence: { file: files.audit, line: again, url: null },
      },
    ]);
    store.close();
  });

  it('id-order: a findings table whose ids do not ascend names its section and the first id out of order', async () => {
    const swapped = DAY_22.replace(
      '| R-101 | P0 | safety | scripts/exit_orders.py:88 | exit order placed without halt check |\n| R-102 | P1 | error handling | web/lib/quote.ts:12 | fallback swallows 503 |',
      '| R-102 | P1 | error handling | web/lib/quote.ts:12 | fallback swallows 503 |\n| R-101 | P0 | safety | scripts/exit_orders.py:88 | exit order placed without halt check |',
    );
    const text = audit(ANCHORS, swapped);
    const { files, follower, store } = fixture(text);
    await follower.poll(at(1));
    const line = lineOf(text, '| R-101 |');
    expect(follower.contractBreaches()).toEqual([
      {
        kind: 'id-order',
        loop: 'rel',
        date: '2026-08-22',
        phase: null,
        id: 'R-101',
        detail: `In the findings of "Delta audit 2026-08-22", R-101 (line ${line} of RELIABILITY_AUDIT.md) comes after R-102: ids do not ascend`,
        since: '2026-08-22',
        evidence: { file: files.audit, line, url: null },
      },
    ]);
    store.close();
  });

  it('anchor: the latest audit line counting other than its section\'s finding rows names that line', async () => {
    const anchors = ANCHORS.replace('2026-08-23 — 1 new findings', '2026-08-23 — 3 new findings');
    const text = audit(anchors);
    const { files, follower, store } = fixture(text);
    await follower.poll(at(1));
    const line = lineOf(text, '9be41d07');
    expect(follower.contractBreaches()).toEqual([
      {
        kind: 'anchor',
        loop: 'rel',
        date: '2026-08-23',
        phase: null,
        id: '9be41d07 (count)',
        detail: 'The anchor "Audited through: 9be41d07 on 2026-08-23" says 3 new findings, but "Delta audit 2026-08-23" has 1 finding row',
        since: '2026-08-23',
        evidence: { file: files.audit, line, url: null },
      },
    ]);
    store.close();
  });
});
