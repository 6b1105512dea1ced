import { describe, expect, it } from 'vitest';
import { findingKey } from './sinks/alertmanager-alert';
import { makeDraft } from './notice-draft';
import { MESSAGE_MAX, TITLE_MAX } from './notice-text';
import { deriveNotices } from './rules/rules';
import { CYCLE_29, emptyInput, finding, phase, reliabilityLoop } from '../../../testing/notice-fixtures';

const NOW = new Date('2026-11-30T07:00:00.000Z');
// OSC 52 (write the terminal's clipboard) ended by BEL, an RLO, a C1 CSI and the bidi marks.
const HOSTILE = '\x1b]52;c;cm0gLXJmIH4=\x07 \u202eevil\u202c \u009b2J \u200e\u200f\u061c\u2066x\u2069';
// Every character a receiver must never get raw.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('makeDraft', () => {
  it('escapes controls and bidi characters visibly in every field', () => {
    const d = makeDraft({
      key: `phase:${HOSTILE}`,
      priority: 1,
      source: `loop:${HOSTILE}`,
      title: `T ${HOSTILE}`,
      message: `M ${HOSTILE}`,
      url: `http://x/${HOSTILE}`,
      urlTitle: `U ${HOSTILE}`,
      requires: `host-down:${HOSTILE}`,
    });
    for (const [field, value] of Object.entries(d)) expect(RAW.test(String(value)), field).toBe(false);
    expect(d.message).toBe('M \\x1b]52;c;cm0gLXJmIH4=\\x07 \\u202eevil\\u202c \\u009b2J \\u200e\\u200f\\u061c\\u2066x\\u2069');
    expect(d.key).toBe(`phase:${d.message.slice(2)}`);
    expect(d.requires).toBe(`host-down:${d.message.slice(2)}`);
  });

  it('keeps the line breaks of a multi-line message (a CR as LF), not of a title', () => {
    const d = makeDraft({ key: 'k', priority: 0, source: 's', title: 'a\nb', message: 'one\ntwo\r\nthree\rfour', url: null, urlTitle: 'x' });
    expect(d.message).toBe('one\ntwo\nthree\nfour');
    expect(d.title).toBe('a\\x0ab');
    expect(d.urlTitle).toBeNull();
  });

  it('leaves ordinary text alone, and keeps the limits after escaping', () => {
    const plain = makeDraft({ key: 'finding:reliability:R-1', priority: 2, source: 'loop:reliability', title: 'P0 R-1 — ok', message: 'a@b.com «quoted» 日本', url: 'http://127.0.0.1:7777/#/x', urlTitle: 'R-1 in Loopdeck' });
    expect(plain).toEqual({ key: 'finding:reliability:R-1', priority: 2, source: 'loop:reliability', title: 'P0 R-1 — ok', message: 'a@b.com «quoted» 日本', url: 'http://127.0.0.1:7777/#/x', urlTitle: 'R-1 in Loopdeck' });
    const long = makeDraft({ key: 'k', priority: 0, source: 's', title: '\x1b'.repeat(TITLE_MAX), message: '\u202e'.repeat(MESSAGE_MAX), url: null, urlTitle: null });
    expect(long.title.length).toBe(TITLE_MAX);
    expect(long.message.length).toBe(MESSAGE_MAX);
    expect(long.title.startsWith('\\x1b\\x1b')).toBe(true);
  });
});

describe('notices derived from hostile source text', () => {
  it('escape a .status detail line in the phase notice, and a finding id the same way in its key and in findingKey', () => {
    const failed = phase('deliver', 'failed', { detail: [HOSTILE] });
    const loop = reliabilityLoop({ deadman: null, cycles: [{ date: '2026-11-30', status: 'failed', phases: [failed] }, CYCLE_29] });
    const f = finding(`R-1${HOSTILE}`, 'P0');
    const drafts = deriveNotices(emptyInput(NOW, { loops: [loop], findings: [f] }));
    const d = drafts.find((x) => x.key === 'phase:reliability:2026-11-30:deliver:failed');
    expect(d?.message).toContain('\\x1b]52;c;cm0gLXJmIH4=\\x07 \\u202eevil');
    for (const x of drafts) for (const [field, value] of Object.entries(x)) expect(RAW.test(String(value)), `${x.key} ${field}`).toBe(false);
    expect(drafts.map((x) => x.key)).toContain(findingKey(f));
  });
});
