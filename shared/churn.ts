import type { BacklogItem, Finding } from './domain';
import { addDays, closedNight, openedNight } from './trends';

// Churn: work the loop called done that came back (issue 30, item 3). Two rules, one list:
// a DONE backlog item whose log later gives it another outcome (reopened), and a new finding at
// the same `file:line` and category as a DONE one, found within REFOUND_DAYS after that DONE
// under another ID (re-found). One rule for the Trends view and `loopdeck trends`.

/** A finding found again this many days after its twin's DONE (inclusive) is churn; later, it is a new defect. */
export const REFOUND_DAYS = 30;

/** One piece of churn, with the IDs involved. */
export type ChurnEntry =
  | {
      readonly kind: 'reopened';
      readonly loop: string;
      /** The backlog item (`REL-###`) and the findings it covers. */
      readonly item: string;
      readonly findings: readonly string[];
      readonly doneOn: string | null;
      /** The date of the later row (the DONE's when that row has none), and its outcome's first word. */
      readonly date: string | null;
      readonly outcome: string;
      readonly text: string;
    }
  | {
      readonly kind: 'refound';
      readonly loop: string;
      /** The new finding, and the DONE one at the same place and category. */
      readonly id: string;
      readonly of: string;
      readonly items: readonly string[];
      readonly where: string;
      readonly category: string;
      readonly doneOn: string;
      readonly date: string;
      readonly days: number;
      readonly text: string;
    };

const DAY = 86_400_000;
const DATE_RE = /(\d{4}-\d{2}-\d{2})/;
const isDone = (outcome: string): boolean => /^done\b/i.test(outcome.trim());
const dateOf = (d: string | null | undefined): string | null => (d ? (DATE_RE.exec(d)?.[1] ?? null) : null);
const place = (f: Finding): string | null => {
  const where = f.where?.trim().replace(/^`+|`+$/g, '').trim();
  const category = f.category?.trim().toLowerCase();
  return where && category ? `${f.loop}\u0000${where}\u0000${category}` : null;
};

/** Backlog items with a DONE row followed (in the log's order: it is append-only) by a row with another outcome. */
function reopened(backlog: readonly BacklogItem[]): ChurnEntry[] {
  const out: ChurnEntry[] = [];
  for (const b of backlog) {
    const rows = [...b.outcomes].sort((x, y) => x.line - y.line);
    const done = rows.findIndex((o) => isDone(o.outcome));
    if (done < 0) continue;
    const after = rows.slice(done + 1).find((o) => !isDone(o.outcome));
    if (!after) continue;
    const doneOn = dateOf(rows[done]?.date);
    const outcome = after.outcome.trim().split(/\s+/)[0] ?? after.outcome;
    const date = dateOf(after.date) ?? doneOn;
    out.push({ kind: 'reopened', loop: b.loop, item: b.id, findings: b.findings, doneOn, date, outcome, text: `${b.id} was DONE${doneOn ? ` on ${doneOn}` : ''}, then ${outcome}${date ? ` on ${date}` : ''}` });
  }
  return out;
}

/** New findings at a DONE finding's `file:line` and category, opened within REFOUND_DAYS after its DONE. */
function refound(findings: readonly Finding[], backlog: readonly BacklogItem[]): ChurnEntry[] {
  const items = new Map(backlog.map((b) => [`${b.loop}\u0000${b.id}`, b]));
  const byPlace = new Map<string, Finding[]>();
  for (const f of findings) {
    const k = place(f);
    if (k === null) continue;
    const list = byPlace.get(k);
    if (list) list.push(f);
    else byPlace.set(k, [f]);
  }
  const out: ChurnEntry[] = [];
  for (const list of byPlace.values()) {
    if (list.length < 2) continue;
    for (const f of list) {
      const found = openedNight(f);
      // The nearest earlier DONE twin: the one this finding re-opens.
      let twin: { f: Finding; on: string } | null = null;
      for (const d of list) {
        if (d.id === f.id) continue;
        const on = closedNight(d, items);
        if (on === null || found <= on || found > addDays(on, REFOUND_DAYS)) continue;
        if (twin === null || on > twin.on) twin = { f: d, on };
      }
      if (!twin) continue;
      const days = Math.round((Date.parse(`${found}T00:00:00Z`) - Date.parse(`${twin.on}T00:00:00Z`)) / DAY);
      const where = f.where?.trim() ?? '';
      out.push({
        kind: 'refound',
        loop: f.loop,
        id: f.id,
        of: twin.f.id,
        items: twin.f.backlog,
        where,
        category: f.category ?? '',
        doneOn: twin.on,
        date: found,
        days,
        text: `${f.id} re-found ${where} (${f.category ?? ''}) ${days} day(s) after ${twin.f.id} was DONE on ${twin.on}`,
      });
    }
  }
  return out;
}

/** Every loop's churn, newest first; with a window, only what happened in it (an undated reopen counts at its DONE's date). */
export function deriveChurn(findings: readonly Finding[], backlog: readonly BacklogItem[], window?: { readonly from: string; readonly to: string }): ChurnEntry[] {
  const all = [...reopened(backlog), ...refound(findings, backlog)];
  const inWindow = window ? all.filter((c) => c.date === null || (c.date >= window.from && c.date <= window.to)) : all;
  return inWindow.sort((a, b) => ((b.date ?? '') < (a.date ?? '') ? -1 : (b.date ?? '') > (a.date ?? '') ? 1 : 0));
}
