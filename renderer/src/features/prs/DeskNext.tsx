import { useState } from 'react';
import type { DeskPr } from '../../../../shared/pr-desk';
import { describeError } from '../../client';
import { formatDateTime } from '../../ui/format';
import { useDeck } from '../../store';

/**
 * The PR body's Next section as a checklist: each step ticked done with `prs.nextDone`, who and
 * when shown to everyone. A tick is not taken back from here; `may` false (a viewer, or nobody
 * known yet) leaves the boxes disabled.
 */
export function DeskNext({ pr, may }: { pr: DeskPr; may: boolean }) {
  const tick = useDeck((s) => s.tickNextStep);
  const [busy, setBusy] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Ticks main confirmed that `desk.changed` has not brought yet (by step, with the step's text).
  const [confirmed, setConfirmed] = useState<Readonly<Record<number, { text: string; doneBy: string; doneAt: string }>>>({});
  if (pr.next.length === 0) return null;
  const steps = pr.next.map((s, i) => {
    const mine = confirmed[i];
    return s.doneAt === null && mine && mine.text === s.text ? { ...s, doneBy: mine.doneBy, doneAt: mine.doneAt } : s;
  });
  const done = steps.filter((s) => s.doneAt !== null).length;

  const onTick = async (step: number) => {
    setBusy(step);
    setError(null);
    try {
      const { doneBy, doneAt } = await tick({ loop: pr.loop, number: pr.number, step });
      setConfirmed((c) => ({ ...c, [step]: { text: pr.next[step]?.text ?? '', doneBy, doneAt } }));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <fieldset className="desk-next" data-testid={`desk-next-${pr.number}`}>
      <legend>
        Before merging (the PR&apos;s Next section) <span className="muted">· {done} of {pr.next.length} done</span>
      </legend>
      <ul>
        {steps.map((s, i) => {
          const ticked = s.doneAt !== null;
          return (
            <li key={i} className={ticked ? 'desk-step done' : 'desk-step'} data-testid={`desk-step-${pr.number}-${i}`} data-done={ticked}>
              <label>
                <input
                  type="checkbox"
                  // Shown ticked while main records it (unticked again, with the reason, if it refuses).
                  checked={ticked || busy === i}
                  disabled={!may || ticked || busy !== null}
                  onChange={() => void onTick(i)}
                  data-testid={`desk-step-box-${pr.number}-${i}`}
                />
                <span className="desk-step-text">{s.text}</span>
              </label>
              {ticked ? (
                <span className="muted small desk-step-who" data-testid={`desk-step-who-${pr.number}-${i}`}>
                  ticked by <b>{s.doneBy ?? 'someone'}</b> at {formatDateTime(s.doneAt) ?? s.doneAt}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
      {error ? (
        <p className="callout callout-bad small" role="alert">
          Could not tick the step: {error}
        </p>
      ) : null}
    </fieldset>
  );
}
