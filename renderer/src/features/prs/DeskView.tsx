import { useState } from 'react';
import type { DeskPr } from '../../../../shared/pr-desk';
import { useMay, useRoleNeeded } from '../../store';
import { RoleNote } from '../../ui/RoleNote';
import { DeskCard } from './DeskCard';
import { MergeDialog } from './MergeDialog';
import { deskCounts } from './desk';
import './desk.css';

/**
 * The merge desk (issue 44): every PR the loops opened as GitHub has it, one card each, with what
 * to look at before merging, the Next section as a checklist, and the merge of the head shown.
 */
export function DeskView({ desk }: { desk: readonly DeskPr[] }) {
  const mayTick = useMay('prs.nextDone');
  const mayMerge = useMay('prs.merge');
  const mergeNeeds = useRoleNeeded('prs.merge');
  // The PR as it was when its confirmation opened: the merge is of that head.
  const [merging, setMerging] = useState<DeskPr | null>(null);
  const counts = deskCounts(desk);
  const current = merging ? (desk.find((p) => p.loop === merging.loop && p.number === merging.number) ?? null) : null;
  return (
    <section className="card desk" aria-labelledby="desk-title" data-testid="desk">
      <header className="findings-head">
        <h2 id="desk-title">Merge desk</h2>
        <span className="muted">
          {counts.open} open · {counts.mergeable} mergeable now · {counts.marked} marked
        </span>
        <RoleNote needed={mergeNeeds} testId="desk-role-note">
          Ticking Next steps and merging need
        </RoleNote>
      </header>
      <div className="desk-list">
        {desk.map((pr) => (
          <DeskCard key={`${pr.loop}:${pr.repo}#${pr.number}`} pr={pr} desk={desk} mayTick={mayTick} mayMerge={mayMerge} onMerge={setMerging} />
        ))}
      </div>
      {merging ? <MergeDialog key={`${merging.loop}:${merging.number}`} seen={merging} current={current} onClose={() => setMerging(null)} /> : null}
    </section>
  );
}
