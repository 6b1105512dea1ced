import { describe, expect, it } from 'vitest';
import type { CommandName } from '../../../shared/contract';
import { createKeySequence, G_TIMEOUT_MS, GO_KEYS, isTypingTarget, KEY_HELP, SHORTCUT_COMMANDS, shortcutAllowed, type KeyInput, type ShortcutAction } from './shortcuts';

const BODY = { tagName: 'BODY', isContentEditable: false };
const key = (k: string, more: Partial<KeyInput> = {}): KeyInput => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, target: BODY, ...more });

describe('createKeySequence', () => {
  it('maps g then each letter to its view, in the nav order', () => {
    const seq = createKeySequence();
    const hashes = 'rnlfepctd'.split('').map((l, i) => {
      expect(seq.feed(key('g'), i * 100)).toBeNull();
      return seq.feed(key(l), i * 100 + 50);
    });
    expect(hashes).toEqual(
      ['#/review', '#/notices', '#/loops', '#/findings', '#/ledgers', '#/prs', '#/capacity', '#/trends', '#/drills'].map((hash) => ({ kind: 'go', hash })),
    );
    expect(GO_KEYS.map((g) => g.key).join('')).toBe('rnlfepctd');
  });

  it('forgets g after the timeout, and a letter alone is not navigation', () => {
    const seq = createKeySequence();
    seq.feed(key('g'), 0);
    expect(seq.feed(key('f'), G_TIMEOUT_MS + 1)).toBeNull();
    expect(seq.feed(key('r'), G_TIMEOUT_MS + 2)).toBeNull();
    seq.feed(key('g'), 5000);
    expect(seq.feed(key('f'), 5000 + G_TIMEOUT_MS)).toEqual({ kind: 'go', hash: '#/findings' });
  });

  it('counts the letter from when it was pressed: a console busy between g and the letter still goes there', () => {
    const seq = createKeySequence();
    seq.feed(key('g', { timeStamp: 0 }), 0);
    // Pressed 100 ms after the g was handled, handled 2 s later (a long render in between).
    expect(seq.feed(key('d', { timeStamp: 100 }), 2000)).toEqual({ kind: 'go', hash: '#/drills' });
    // A g handled late (the console was busy when it was pressed) opens its window when handled.
    seq.feed(key('g', { timeStamp: 3000 }), 5000);
    expect(seq.feed(key('f', { timeStamp: 5010 }), 5020)).toEqual({ kind: 'go', hash: '#/findings' });
    // Pressed too late is too late, however soon it is handled.
    seq.feed(key('g', { timeStamp: 6000 }), 6000);
    expect(seq.feed(key('f', { timeStamp: 6000 + G_TIMEOUT_MS + 1 }), 6000 + G_TIMEOUT_MS + 2)).toBeNull();
    // A time stamp on another clock (after the handling time) is not believed: the handling time counts.
    seq.feed(key('g', { timeStamp: 9e12 }), 10_000);
    expect(seq.feed(key('f', { timeStamp: 9e12 }), 10_000 + G_TIMEOUT_MS + 1)).toBeNull();
  });

  it('uses g only once: g f f is one navigation, then nothing', () => {
    const seq = createKeySequence();
    seq.feed(key('g'), 0);
    expect(seq.feed(key('f'), 10)).toEqual({ kind: 'go', hash: '#/findings' });
    expect(seq.feed(key('f'), 20)).toBeNull();
  });

  it('after g, another key drops the g and counts on its own', () => {
    const seq = createKeySequence();
    seq.feed(key('g'), 0);
    expect(seq.feed(key('j'), 10)).toEqual({ kind: 'move', step: 1 });
    expect(seq.feed(key('r'), 20)).toBeNull();
  });

  it('maps the single keys', () => {
    const seq = createKeySequence();
    expect(seq.feed(key('?'), 0)).toEqual({ kind: 'help' });
    expect(seq.feed(key('/'), 0)).toEqual({ kind: 'filter' });
    expect(seq.feed(key('j'), 0)).toEqual({ kind: 'move', step: 1 });
    expect(seq.feed(key('k'), 0)).toEqual({ kind: 'move', step: -1 });
    expect(seq.feed(key('Enter'), 0)).toEqual({ kind: 'open' });
    expect(seq.feed(key('a'), 0)).toEqual({ kind: 'ack' });
    expect(seq.feed(key('x'), 0)).toBeNull();
    expect(seq.feed(key('J'), 0)).toBeNull();
  });

  it('ignores keys with Ctrl, Meta or Alt, and they drop a pending g', () => {
    const seq = createKeySequence();
    for (const mod of ['ctrlKey', 'metaKey', 'altKey'] as const) {
      expect(seq.feed(key('j', { [mod]: true }), 0)).toBeNull();
      expect(seq.feed(key('?', { [mod]: true }), 0)).toBeNull();
      seq.feed(key('g'), 0);
      expect(seq.feed(key('f', { [mod]: true }), 1)).toBeNull();
      expect(seq.feed(key('f'), 2)).toBeNull();
    }
    expect(seq.feed(key('g', { ctrlKey: true }), 0)).toBeNull();
    expect(seq.feed(key('f'), 1)).toBeNull();
  });

  it('ignores keys typed into fields, so typing g then f in a search box does not navigate', () => {
    const seq = createKeySequence();
    for (const target of [{ tagName: 'INPUT' }, { tagName: 'textarea' }, { tagName: 'SELECT' }, { tagName: 'DIV', isContentEditable: true }]) {
      expect(seq.feed(key('g', { target }), 0)).toBeNull();
      expect(seq.feed(key('f', { target }), 1)).toBeNull();
      expect(seq.feed(key('/', { target }), 2)).toBeNull();
      expect(seq.feed(key('j', { target }), 3)).toBeNull();
    }
    // A g typed in a field does not arm the prefix for the next key outside it.
    seq.feed(key('g', { target: { tagName: 'INPUT' } }), 0);
    expect(seq.feed(key('f'), 1)).toBeNull();
    expect(seq.feed(key('x', { isComposing: true }), 0)).toBeNull();
  });
});

describe('isTypingTarget', () => {
  it('knows fields from other elements', () => {
    expect(isTypingTarget({ tagName: 'INPUT' })).toBe(true);
    expect(isTypingTarget({ tagName: 'SPAN', isContentEditable: true })).toBe(true);
    expect(isTypingTarget({ tagName: 'BUTTON', isContentEditable: false })).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
    expect(isTypingTarget({ addEventListener: () => undefined })).toBe(false);
  });
});


describe('shortcutAllowed', () => {
  const all = (): boolean => true;
  const none = (): boolean => false;
  const only = (allowed: CommandName) => (c: CommandName) => c === allowed;

  it('a shortcut that sends a command fires only for a caller who may send it', () => {
    const ack = createKeySequence().feed(key('a'), 0);
    expect(ack).toEqual({ kind: 'ack' });
    if (!ack) return;
    expect(shortcutAllowed(ack, all)).toBe(true);
    expect(shortcutAllowed(ack, none)).toBe(false);
    expect(shortcutAllowed(ack, only('notices.ack'))).toBe(true);
    expect(shortcutAllowed(ack, only('review.mark'))).toBe(false);
  });

  it('moving, opening, filtering, help and navigation only read, so they fire for anyone (a viewer, or before the role is known)', () => {
    const actions: ShortcutAction[] = [{ kind: 'help' }, { kind: 'filter' }, { kind: 'move', step: 1 }, { kind: 'open' }, { kind: 'go', hash: '#/notices' }];
    for (const a of actions) expect(shortcutAllowed(a, none)).toBe(true);
  });

  it('every key help line that sends a command names it, so the list hides what the role lacks', () => {
    expect(KEY_HELP.find((h) => h.keys === 'a')?.command).toBe('notices.ack');
    expect(Object.values(SHORTCUT_COMMANDS)).toEqual(['notices.ack']);
  });
});
