// Keyboard shortcuts for the whole console. The key-sequence logic is a pure function of keys and
// time (unit-tested); the DOM side is generic: a view marks its rows and cards with `data-row`, the
// control Enter should press inside a row with `data-row-open`, a notice's Acknowledge button with
// `data-row-ack`, and its filter box with `data-shortcut-filter`. Views need no handlers of their own.

import { useEffect, useRef } from 'react';
import type { CommandName } from '../../../shared/contract';
import { VIEWS } from './views';

/** What a key (or the `g` sequence) asks for. */
export type ShortcutAction =
  | { readonly kind: 'help' }
  | { readonly kind: 'go'; readonly hash: string }
  | { readonly kind: 'filter' }
  | { readonly kind: 'move'; readonly step: 1 | -1 }
  | { readonly kind: 'open' }
  | { readonly kind: 'ack' };

/** The second key after `g` and where it goes: the view table, in the nav's order (also listed in the help dialog). */
export const GO_KEYS: readonly { readonly key: string; readonly label: string; readonly hash: string }[] = VIEWS;

/**
 * The command a shortcut sends, for those that change state: a role without it gets no shortcut
 * (the button it would press is hidden too, but the key must not depend on that).
 */
export const SHORTCUT_COMMANDS: Readonly<Partial<Record<ShortcutAction['kind'], CommandName>>> = { ack: 'notices.ack' };

/** Whether a shortcut may fire for a caller who may send exactly the commands `may` allows. */
export function shortcutAllowed(action: ShortcutAction, may: (command: CommandName) => boolean): boolean {
  const command = SHORTCUT_COMMANDS[action.kind];
  return command === undefined || may(command);
}

/** The single-key shortcuts, for the help dialog; `command` is what the key sends (listed only for a role that may). */
export const KEY_HELP: readonly { readonly keys: string; readonly what: string; readonly command?: CommandName }[] = [
  { keys: '?', what: 'Show this list' },
  { keys: '/', what: 'Focus the filter of the current view' },
  { keys: 'j / k', what: 'Next / previous row or card' },
  { keys: 'Enter', what: 'Open the focused row (finding, phase, notice link)' },
  { keys: 'Esc', what: 'Close what is open' },
  { keys: 'a', what: 'Acknowledge the focused notice', command: 'notices.ack' },
];

/** How long `g` waits for its second key. */
export const G_TIMEOUT_MS = 1500;

/** The parts of a keydown event the sequence logic reads (a KeyboardEvent fits). */
export interface KeyInput {
  readonly key: string;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly altKey: boolean;
  readonly isComposing?: boolean;
  readonly target: unknown;
  /** When the key was pressed, on the `now` clock (a KeyboardEvent's `timeStamp`); the handling time when absent. */
  readonly timeStamp?: number;
}

/** Whether the key went to a field being typed in (text inputs, selects, contenteditable): then no shortcut fires. */
export function isTypingTarget(target: unknown): boolean {
  if (typeof target !== 'object' || target === null) return false;
  const el = target as { tagName?: unknown; isContentEditable?: unknown };
  if (el.isContentEditable === true) return true;
  const tag = typeof el.tagName === 'string' ? el.tagName.toUpperCase() : '';
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

const SINGLE: Readonly<Record<string, ShortcutAction>> = {
  '?': { kind: 'help' },
  '/': { kind: 'filter' },
  j: { kind: 'move', step: 1 },
  k: { kind: 'move', step: -1 },
  Enter: { kind: 'open' },
  a: { kind: 'ack' },
};

/** Turns keydowns into actions (`now`: when the key is handled); remembers a pending `g` for `timeoutMs`. */
export interface KeySequence {
  feed(e: KeyInput, now: number): ShortcutAction | null;
}

/**
 * The key-sequence logic. A key with Ctrl/Meta/Alt, or typed into a field, is never a shortcut (and
 * drops a pending `g`). After `g`, a listed letter within the timeout goes there; any other key
 * drops the `g` and counts on its own.
 *
 * The timeout runs from when the console handled the `g` to when the letter was *pressed*: a
 * console busy drawing a chart between the two keys must not turn the operator's `g d`, typed
 * 200 ms apart, into two stray keys (the letter is handled late, but was pressed in time).
 */
export function createKeySequence(timeoutMs = G_TIMEOUT_MS): KeySequence {
  let gAt: number | null = null;
  return {
    feed(e, now) {
      if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing || isTypingTarget(e.target)) {
        gAt = null;
        return null;
      }
      const pressed = e.timeStamp !== undefined && e.timeStamp < now ? e.timeStamp : now;
      const pending = gAt !== null && pressed - gAt <= timeoutMs;
      gAt = null;
      if (pending) {
        const go = GO_KEYS.find((g) => g.key === e.key);
        if (go) return { kind: 'go', hash: go.hash };
      }
      if (e.key === 'g') {
        gAt = now;
        return null;
      }
      return SINGLE[e.key] ?? null;
    },
  };
}

/** The visible rows and cards of the current view, in document order. */
function viewRows(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('#content [data-row]')].filter((el) => el.getClientRects().length > 0);
}

function focusedRow(): HTMLElement | null {
  const active = document.activeElement;
  return active instanceof HTMLElement && active.matches('#content [data-row]') ? active : null;
}

function focusRow(el: HTMLElement): void {
  if (!el.hasAttribute('tabindex') && !el.matches('button, a[href]')) el.setAttribute('tabindex', '-1');
  el.focus();
  el.scrollIntoView?.({ block: 'nearest' });
}

/** Carry out an action on the page; false when it did nothing (so the key keeps its default). */
function perform(action: ShortcutAction, onHelp: () => void): boolean {
  switch (action.kind) {
    case 'help':
      onHelp();
      return true;
    case 'go':
      if (window.location.hash !== action.hash) window.location.hash = action.hash;
      return true;
    case 'filter': {
      const box = document.querySelector<HTMLInputElement>('#content [data-shortcut-filter]');
      if (!box) return false;
      box.focus();
      box.select?.();
      return true;
    }
    case 'move': {
      const rows = viewRows();
      if (rows.length === 0) return false;
      // Start from the focused row, else from the one that is selected or open.
      const from = focusedRow() ?? rows.find((r) => r.matches('[aria-selected="true"], [aria-pressed="true"]')) ?? null;
      const at = from ? rows.indexOf(from) : -1;
      const next = at < 0 ? (action.step > 0 ? 0 : rows.length - 1) : Math.max(0, Math.min(rows.length - 1, at + action.step));
      focusRow(rows[next] as HTMLElement);
      return true;
    }
    case 'open': {
      const row = focusedRow();
      if (!row) return false;
      const part = row.querySelector<HTMLElement>('[data-row-open]');
      const target = part ? (part.matches('a[href], button') ? part : part.querySelector<HTMLElement>('a[href], button')) : row;
      target?.click();
      return target !== null && target !== undefined;
    }
    case 'ack': {
      const button = focusedRow()?.querySelector<HTMLButtonElement>('[data-row-ack]:not([disabled])');
      button?.click();
      return !!button;
    }
  }
}

/**
 * Listen for the console's shortcuts on the window while mounted. Nothing fires while a modal
 * dialog is open (it owns the keyboard) or a key event was already handled, nor a shortcut whose
 * command `may` refuses (the caller's role, see `useMay`).
 */
export function useShortcuts(onHelp: () => void, may: (command: CommandName) => boolean): void {
  const help = useRef(onHelp);
  const allowed = useRef(may);
  useEffect(() => {
    help.current = onHelp;
    allowed.current = may;
  });
  useEffect(() => {
    const sequence = createKeySequence();
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || document.querySelector('dialog[open]')) return;
      const action = sequence.feed(e, performance.now());
      if (action && shortcutAllowed(action, allowed.current) && perform(action, () => help.current())) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
