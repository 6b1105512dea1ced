import { describe, expect, it } from 'vitest';
import { CycleSchema, PhaseSchema } from '../../../shared/domain';
import type { Phase, PhaseStatus } from '../../../shared/domain';
import { parseLines } from '../text/lines';
import { referenceManual } from '../../../testing/reference-manual';
import { rcFileParser } from './rc-file';
import { statusFileParser } from './status-file';
import { transcriptParser } from '../transcripts/transcript-parser';
import { deriveCycle, derivePhase, deriveStage, readStamp } from './phase-status';
import type { PhaseEvidence } from './phase-status';

const HOUR = 3_600_000;
const CAP = 20 * HOUR;
const NOW = new Date('2026-08-23T16:00:00Z'); // 12:00 at -04:00

// FORMATS.md §2.1, verbatim.
const FORMATS_STATUS = [
  'audit 2026-08-23T00:00:04-04:00 STARTED',
  'audit 2026-08-23T00:41:12-04:00 OK',
  'remediate 2026-08-23T09:12:40-04:00 INCOMPLETE',
  'agent exited 0 without committing to the nightly branch',
  'deliver 2026-08-23T10:02:11-04:00 2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89',
].join('\n');
const NOOP_AUDIT = 'NIGHTLY PHASE NO-OP: loop=reliability phase=audit no new findings in the delta range';
const READY = 'NIGHTLY DELIVER READY: loop=reliability prs=1 https://github.com/acme/radon/pull/88';
const INCOMPLETE = 'NIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci/test pr=https://github.com/acme/radon/pull/88';

interface Files {
  readonly loop?: string;
  readonly phase?: string;
  readonly status?: string;
  readonly log?: string;
  readonly rc?: Readonly<Record<string, string>>;
  readonly first?: string | null;
  readonly last?: string | null;
}

/** Evidence built from file texts through the real parsers. */
function ev(f: Files): PhaseEvidence {
  const parse = <S,>(p: Parameters<typeof parseLines<S>>[0], text: string | undefined) => (text === undefined ? [] : parseLines(p, `${text}\n`, 'x').records);
  return {
    loop: f.loop ?? 'reliability',
    phase: f.phase ?? 'audit',
    statusRecords: parse(statusFileParser, f.status),
    logRecords: parse(transcriptParser, f.log),
    stages: Object.entries(f.rc ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([stage, text]) => ({ stage, records: parse(rcFileParser, text) })),
    hasLog: f.log !== undefined,
    hasStatus: f.status !== undefined,
    firstFileTime: f.first === undefined ? (f.status ?? f.log ?? f.rc ? '2026-08-23T05:00:00.000Z' : null) : f.first,
    lastFileTime: f.last === undefined ? (f.status ?? f.log ?? f.rc ? '2026-08-23T06:00:00.000Z' : null) : f.last,
  };
}

const derive = (f: Files, now = NOW): Phase => PhaseSchema.parse(derivePhase(ev(f), now, CAP));

describe('derivePhase: wrapper stamps decide first', () => {
  it('reads each phase of the FORMATS.md example', () => {
    expect(derive({ status: FORMATS_STATUS })).toMatchObject({
      name: 'audit',
      status: 'ok',
      startedAt: '2026-08-23T04:00:04.000Z',
      endedAt: '2026-08-23T04:41:12.000Z',
      timesFrom: 'stamps',
      detail: [],
      reason: 'wrapper stamp OK',
    });
    expect(derive({ status: FORMATS_STATUS, phase: 'remediate' })).toMatchObject({
      status: 'incomplete',
      detail: ['agent exited 0 without committing to the nightly branch'],
      startedAt: '2026-08-23T05:00:00.000Z', // no STARTED stamp: the first file time
      endedAt: '2026-08-23T13:12:40.000Z',
      timesFrom: 'files',
      reason: 'wrapper stamp INCOMPLETE',
    });
    expect(derive({ status: FORMATS_STATUS, phase: 'deliver' })).toMatchObject({ status: 'ready', detail: [] });
  });

  it.each<[string, PhaseStatus]>([
    ['OK', 'ok'],
    ['NO-OP', 'no-op'],
    ['INCOMPLETE', 'incomplete'],
    ['INCOMPLETE: ci/test', 'incomplete'],
    ['FAILED 2', 'failed'],
    ['FAILED 1', 'failed'],
    ['FAILED 75', 'incomplete'],
    ['FAILED 175', 'failed'],
    ['1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88', 'ready'],
    ['2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89', 'ready'],
    ['0 PR(s), nothing to merge', 'ok'],
  ])('final stamp %j → %s', (stamp, status) => {
    const p = derive({ status: `audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T02:00:00-04:00 ${stamp}` });
    expect(p.status).toBe(status);
    expect(p.reason).toBe(`wrapper stamp ${stamp}`);
    expect(p.endedAt).toBe('2026-08-23T06:00:00.000Z');
  });

  it('the LAST stamp decides: a new STARTED after an outcome is a running continuation round', () => {
    const p = derive({ status: 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T01:00:00-04:00 FAILED 75\naudit 2026-08-23T01:05:00-04:00 STARTED' });
    expect(p).toMatchObject({ status: 'running', startedAt: '2026-08-23T04:00:04.000Z', endedAt: null, timesFrom: 'stamps' });
    expect(p.resumable).toBeUndefined();
  });

  it('marks an exit-75 phase (FAILED 75) resumable, and neither a plain INCOMPLETE, INCOMPLETE: <check> nor another rc', () => {
    const stamped = (stamp: string) => derive({ status: `audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T02:00:00-04:00 ${stamp}` });
    expect(stamped('FAILED 75')).toMatchObject({ status: 'incomplete', resumable: true });
    for (const stamp of ['INCOMPLETE', 'INCOMPLETE: ci/test', 'FAILED 1', 'FAILED 175']) expect(stamped(stamp).resumable).toBeUndefined();
  });

  it('ignores stamps naming another phase, and their detail', () => {
    const p = derive({ status: 'audit 2026-08-23T00:00:04-04:00 OK\nremediate 2026-08-23T01:00:00-04:00 FAILED 2\n  boom' });
    expect(p).toMatchObject({ status: 'ok', detail: [] });
  });

  it('an unknown final stamp is evidence, not a decision, and the reason says so', () => {
    const p = derive({ status: 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T01:00:00-04:00 EXPLODED' });
    expect(p.status).toBe('running');
    expect(p.reason).toContain('unrecognised wrapper stamp "EXPLODED"');
  });

  it('a stamp outranks a verdict; the verdict is still reported', () => {
    const p = derive({ status: 'audit 2026-08-23T00:00:04-04:00 FAILED 2', log: NOOP_AUDIT });
    expect(p.status).toBe('failed');
    expect(p.verdict).toMatchObject({ kind: 'no-op', phase: 'audit', line: NOOP_AUDIT });
  });
});

describe('derivePhase: verdicts', () => {
  it('a NO-OP naming this loop and phase decides', () => {
    const p = derive({ status: 'audit 2026-08-23T00:00:04-04:00 STARTED', log: `working\n${NOOP_AUDIT}` });
    expect(p).toMatchObject({ status: 'no-op', reason: 'NO-OP verdict in the transcript: no new findings in the delta range' });
    expect(p.endedAt).toBe('2026-08-23T06:00:00.000Z'); // no final stamp: the last file time
    expect(p.timesFrom).toBe('files');
  });

  it.each([
    ['another loop', 'NIGHTLY PHASE NO-OP: loop=testing phase=audit nothing'],
    ['another phase', 'NIGHTLY PHASE NO-OP: loop=reliability phase=remediate nothing'],
    ['the manual placeholder', 'NIGHTLY PHASE NO-OP: loop=reliability phase=<audit|remediate> <one-line reason>'],
    ['indented', `  ${NOOP_AUDIT}`],
    ['fenced', `\`\`\`\n${NOOP_AUDIT}\n\`\`\``],
  ])('a NO-OP in %s does not count', (_what, log) => {
    const p = derive({ log });
    expect(p.status).toBe('running');
    expect(p.verdict).toBeNull();
  });

  it('a deliver verdict printed in another phase does not decide it', () => {
    const p = derive({ phase: 'remediate', log: READY });
    expect(p.status).toBe('running');
    expect(p.verdict).toBeNull();
  });

  it('says when the last line is a verdict naming another loop', () => {
    expect(derive({ log: 'NIGHTLY PHASE NO-OP: loop=testing phase=audit nothing' }).reason).toContain("the transcript's last line is a verdict for loop testing, phase audit, not this phase's; not counted");
  });

  it.each<[string, PhaseStatus, string | undefined]>([
    [`${READY}\n${INCOMPLETE}`, 'incomplete', 'deliver-incomplete'],
    [`${INCOMPLETE}\n${READY}`, 'ready', 'deliver-ready'],
    [`${INCOMPLETE}\n${READY}\n\n  \n`, 'ready', 'deliver-ready'],
    [`${READY}\nNIGHTLY DELIVER INCOMPLETE: loop=testing check=x pr=u`, 'running', undefined],
    [`${READY}\nwrapper: pushing the branch`, 'running', undefined],
  ])('only the transcript\'s last non-blank line declares (%#)', (log, status, kind) => {
    const p = derive({ phase: 'deliver', log });
    expect(p.status).toBe(status);
    expect(p.verdict?.kind).toBe(kind);
  });

  it('a NO-OP with output after it has not declared: the phase is still running, and the reason says why the line did not count', () => {
    const p = derive({ log: `working\n${NOOP_AUDIT}\ntool_use Bash git log --stat` });
    expect(p).toMatchObject({ status: 'running', verdict: null });
    expect(p.reason).toContain('1 verdict-shaped line(s) had output after them (prose, not a declaration)');
    // Blank lines and a terminal reset after it are not output: it declares.
    expect(derive({ log: `working\n${NOOP_AUDIT}\n\n\x1b[0m\n` }).status).toBe('no-op');
  });

  it('a last line in a verdict\'s words but not its shape is said, not counted', () => {
    const p = derive({ log: 'working\nNIGHTLY PHASE NO-OP: phase=audit nothing to do' });
    expect(p).toMatchObject({ status: 'running', verdict: null });
    expect(p.reason).toContain('NIGHTLY PHASE NO-OP: phase=audit nothing to do" has no loop=; not counted');
  });

  it.each([
    ['reliability', 'audit'],
    ['reliability', 'remediate'],
    ['reliability', 'deliver'],
    ['testing', 'audit'],
  ])('the loop\'s own manual as the transcript of a running %s %s declares nothing', (loop, phase) => {
    const p = derive({ loop, phase, log: referenceManual() });
    expect(p.status).toBe('running');
    expect(p.verdict).toBeNull();
  });
});

describe('derivePhase: stages, then any evidence', () => {
  const TESTS_RC = 'ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0'; // FORMATS.md §2.3

  it('a stage without DONE is running while young, naming where it is', () => {
    const p = derive({ rc: { tests: TESTS_RC } });
    expect(p).toMatchObject({ status: 'running', reason: 'stage tests at suite, no DONE yet' });
    expect(p.stages).toEqual([
      { name: 'tests', done: false, stoppedAt: 'suite', steps: [{ name: 'ast_refresh', rc: 0 }, { name: 'gates', rc: 0 }, { name: 'suite', rc: null }] },
    ]);
  });

  it('a stage without DONE is incomplete past the cap', () => {
    const p = derive({ rc: { tests: TESTS_RC } }, new Date('2026-08-24T02:00:00Z'));
    expect(p.status).toBe('incomplete');
    expect(p.reason).toContain('stage tests stopped at suite (no DONE)');
    expect(p.endedAt).toBe('2026-08-23T06:00:00.000Z');
  });

  it('a stage with every step valued but no DONE stopped after the last step', () => {
    const p = derive({ rc: { tests: 'gates_rc=\ngates_rc=0' } }, new Date('2026-08-24T02:00:00Z'));
    expect(p.reason).toContain('stage tests stopped after the last step (no DONE)');
    expect(p.stages[0]?.stoppedAt).toBeNull();
  });

  it('all DONE with a non-zero rc is failed, naming the step', () => {
    const p = derive({ rc: { lint: 'x_rc=\nx_rc=0\nDONE', tests: 'GATES_RC=\nSUITE_RC=\nGATES_RC=0\nsuite_rc=2\nDONE' } });
    expect(p).toMatchObject({ status: 'failed', reason: 'stage tests DONE with suite_rc=2' });
  });

  it('a stamp outranks the stages', () => {
    expect(derive({ status: 'audit 2026-08-23T00:00:04-04:00 OK', rc: { tests: TESTS_RC } }).status).toBe('ok');
  });

  it('all DONE and green falls through to the evidence rule', () => {
    expect(derive({ rc: { tests: 'a_rc=\na_rc=0\nDONE' } }).status).toBe('running');
  });

  it('counts continuation rounds (several STARTED stamps), and says nothing of a single one', () => {
    const status = 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T01:00:00-04:00 FAILED 75\naudit 2026-08-23T01:05:00-04:00 STARTED\naudit 2026-08-23T02:00:00-04:00 FAILED 75\naudit 2026-08-23T02:05:00-04:00 STARTED\naudit 2026-08-23T03:00:00-04:00 OK';
    expect(derive({ status })).toMatchObject({ status: 'ok', rounds: 3 });
    expect(derive({ status: 'audit 2026-08-23T00:00:04-04:00 STARTED\naudit 2026-08-23T01:00:00-04:00 OK' }).rounds).toBeUndefined();
    // Another phase's STARTED stamps are not this one's rounds.
    expect(derive({ status: 'audit 2026-08-23T00:00:04-04:00 STARTED\nremediate 2026-08-23T01:00:00-04:00 STARTED' }).rounds).toBeUndefined();
  });

  it('age runs from the first STARTED stamp, not the file times', () => {
    const status = 'audit 2026-08-22T15:00:00-04:00 STARTED\naudit 2026-08-23T00:00:00-04:00 STARTED';
    const p = derive({ status, first: '2026-08-23T15:00:00.000Z' });
    expect(p.status).toBe('incomplete'); // 21 h since the first STARTED
    expect(p.reason).toBe('STARTED stamp but no outcome after 21h (cap 20h)');
    expect(derive({ status: 'audit 2026-08-23T00:00:00-04:00 STARTED' }).reason).toBe('STARTED stamp, no outcome yet (12h in)');
  });

  it('without stamps, age runs from the first file time and times say so', () => {
    expect(derive({ log: 'hello', first: '2026-08-22T19:59:00.000Z' })).toMatchObject({ status: 'incomplete', endedAt: '2026-08-23T06:00:00.000Z', timesFrom: 'files' });
    expect(derive({ log: 'hello', first: '2026-08-22T20:01:00.000Z' })).toMatchObject({
      status: 'running',
      startedAt: '2026-08-22T20:01:00.000Z',
      endedAt: null,
      timesFrom: 'files',
      reason: 'transcript, no outcome yet (19h 59m in)',
    });
  });

  it('no evidence is pending, with no times', () => {
    expect(derive({})).toEqual({
      name: 'audit',
      status: 'pending',
      startedAt: null,
      endedAt: null,
      timesFrom: null,
      detail: [],
      stages: [],
      verdict: null,
      reason: 'no evidence yet',
    });
  });
});

describe('deriveStage', () => {
  const rc = (text: string) => parseLines(rcFileParser, `${text}\n`, 'x').records;

  it('keeps first-planned order, the last assignment wins, names are case-insensitive', () => {
    expect(deriveStage('tests', rc('b_rc=\nA_RC=\nb_rc=1\na_rc=0\nB_RC=0\nDONE'))).toEqual({
      name: 'tests',
      done: true,
      stoppedAt: null,
      steps: [{ name: 'b', rc: 0 }, { name: 'a', rc: 0 }],
    });
  });

  it('a placeholder written after DONE starts a new run', () => {
    expect(deriveStage('t', rc('a_rc=\na_rc=0\nDONE\na_rc='))).toMatchObject({ done: false, stoppedAt: 'a' });
  });

  it('an empty rc file is a stage that has not finished', () => {
    expect(deriveStage('t', [])).toEqual({ name: 't', done: false, stoppedAt: null, steps: [] });
  });
});

describe('readStamp', () => {
  it('tells starts, outcomes and unknown text apart', () => {
    expect(readStamp('STARTED')).toEqual({ kind: 'started' });
    expect(readStamp('FAILED 75')).toEqual({ kind: 'final', status: 'incomplete', resumable: true });
    expect(readStamp('FAILED')).toEqual({ kind: 'final', status: 'failed' });
    expect(readStamp('OKAY')).toEqual({ kind: 'unknown' });
    expect(readStamp('0 PR(s) green, ready to merge:')).toEqual({ kind: 'final', status: 'ok' });
  });
});

describe('deriveCycle', () => {
  const phase = (name: string, status: PhaseStatus, startedAt: string | null = null): Phase => ({
    name,
    status,
    startedAt,
    endedAt: null,
    timesFrom: startedAt ? 'stamps' : null,
    detail: [],
    stages: [],
    verdict: null,
    reason: '',
  });
  const cycle = (statuses: PhaseStatus[], now = NOW, startedAt = '2026-08-23T04:00:00.000Z') =>
    CycleSchema.parse(deriveCycle('2026-08-23', statuses.map((s, i) => phase(`p${i}`, s, i === 0 ? startedAt : null)), now, CAP)).status;

  it.each<[PhaseStatus[], PhaseStatus]>([
    [['ok', 'failed', 'incomplete'], 'failed'],
    [['ok', 'incomplete', 'running'], 'incomplete'],
    [['ok', 'running', 'ready'], 'running'],
    [['ok', 'no-op', 'ready'], 'ready'],
    [['no-op', 'ok', 'ok'], 'ok'],
    [['ok', 'no-op', 'no-op'], 'ok'],
    [['no-op', 'no-op', 'no-op'], 'no-op'],
    [['pending', 'pending', 'pending'], 'pending'],
    [[], 'pending'],
    [['ok', 'pending', 'pending'], 'running'],
    [['ok', 'no-op', 'pending'], 'running'],
    [['failed', 'pending', 'pending'], 'failed'],
    [['incomplete', 'pending', 'pending'], 'incomplete'],
    [['pending', 'ok'], 'ok'],
  ])('%j → %s', (statuses, expected) => {
    expect(cycle(statuses)).toBe(expected);
  });

  it('a finished phase followed by a pending one is incomplete past the cap', () => {
    expect(cycle(['ok', 'pending', 'pending'], new Date('2026-08-24T00:30:00Z'))).toBe('incomplete');
    expect(cycle(['ready', 'pending'], new Date('2026-08-23T23:59:00Z'))).toBe('running');
  });

  it('keeps the phases as given', () => {
    const phases = [phase('audit', 'ok'), phase('remediate', 'failed')];
    expect(deriveCycle('2026-08-23', phases, NOW, CAP)).toEqual({ date: '2026-08-23', status: 'failed', phases });
  });
});

describe('derivePhase: an exit-0 deliver without its verdict line (issue 43, no-verdict)', () => {
  const OK = 'deliver 2026-08-23T10:02:11-04:00 STARTED\ndeliver 2026-08-23T10:40:00-04:00 OK';
  it('is incomplete and marked, with or without a transcript', () => {
    for (const log of [undefined, 'pushed the branch\nopened PR #88']) {
      const p = derive({ phase: 'deliver', status: OK, ...(log ? { log } : {}) });
      expect(p).toMatchObject({ status: 'incomplete', noVerdict: true });
      expect(p.reason).toContain('does not end with a READY or INCOMPLETE verdict line');
    }
  });
  it('a READY or INCOMPLETE last line keeps the stamp; other phases stamped OK are ok; the wrapper\'s own PR stamps are verdicts', () => {
    expect(derive({ phase: 'deliver', status: OK, log: READY })).toMatchObject({ status: 'ok' });
    expect(derive({ phase: 'deliver', status: OK, log: READY }).noVerdict).toBeUndefined();
    expect(derive({ phase: 'deliver', status: OK, log: INCOMPLETE }).noVerdict).toBeUndefined();
    expect(derive({ phase: 'remediate', status: OK.replaceAll('deliver', 'remediate') })).toMatchObject({ status: 'ok' });
    expect(derive({ phase: 'deliver', status: FORMATS_STATUS }).noVerdict).toBeUndefined();
    // A READY line quoted mid-transcript (prose) is no verdict.
    expect(derive({ phase: 'deliver', status: OK, log: `${READY}\nthen more output` })).toMatchObject({ status: 'incomplete', noVerdict: true });
  });
});
