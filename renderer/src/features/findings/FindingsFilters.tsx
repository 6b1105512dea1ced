import type { FindingStatus, Severity } from '../../../../shared/domain';
import { FINDING_STATUSES, SEVERITIES, toggled, type FindingFilter } from './findings';

/** Props of the findings filter bar. */
export interface FindingsFiltersProps {
  filter: FindingFilter;
  /** The text box's own value (the filter applies a deferred copy of it). */
  text: string;
  loops: readonly string[];
  sections: readonly string[];
  categories: readonly string[];
  onText: (text: string) => void;
  onChange: (filter: FindingFilter) => void;
  onClear: () => void;
  filtering: boolean;
}

function Toggles<T extends string>({
  label,
  values,
  selected,
  onToggle,
  classFor,
}: {
  label: string;
  values: readonly T[];
  selected: readonly T[];
  onToggle: (v: T) => void;
  classFor: (v: T) => string;
}) {
  return (
    <div className="toggles" role="group" aria-label={label}>
      <span className="toggles-label" aria-hidden="true">
        {label}
      </span>
      {values.map((v) => (
        <button
          key={v}
          type="button"
          className={`toggle ${classFor(v)}${selected.includes(v) ? ' on' : ''}`}
          aria-pressed={selected.includes(v)}
          onClick={() => onToggle(v)}
        >
          {v}
        </button>
      ))}
    </div>
  );
}

/** Filters over the findings: free text, loop, section, category, severities and statuses. */
export function FindingsFilters({ filter, text, loops, sections, categories, onText, onChange, onClear, filtering }: FindingsFiltersProps) {
  return (
    <div className="findings-filters">
      <div className="filter-row">
        <input
          type="search"
          className="filter-text"
          data-testid="findings-filter-text"
          data-shortcut-filter
          placeholder="Filter by id, file or text…"
          aria-label="Filter findings by id, where or text"
          value={text}
          onChange={(e) => onText(e.target.value)}
          onKeyDown={(e) => {
            // Esc clears the box first; only an empty box lets Esc close the detail pane.
            if (e.key === 'Escape' && text !== '') {
              e.preventDefault();
              onText('');
            }
          }}
        />
        <label className="filter-select">
          <span>Loop</span>
          <select value={filter.loop ?? ''} onChange={(e) => onChange({ ...filter, loop: e.target.value || null })}>
            <option value="">All loops</option>
            {loops.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="filter-select">
          <span>Category</span>
          <select data-testid="findings-filter-category" value={filter.category ?? ''} onChange={(e) => onChange({ ...filter, category: e.target.value || null })}>
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className="filter-select filter-section">
          <span>Section</span>
          <select value={filter.section ?? ''} onChange={(e) => onChange({ ...filter, section: e.target.value || null })}>
            <option value="">All sections</option>
            {sections.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="filter-row">
        <Toggles<Severity>
          label="Severity"
          values={SEVERITIES}
          selected={filter.severities}
          classFor={(v) => `sev-${v}`}
          onToggle={(v) => onChange({ ...filter, severities: toggled(filter.severities, v, SEVERITIES) })}
        />
        <Toggles<FindingStatus>
          label="Status"
          values={FINDING_STATUSES}
          selected={filter.statuses}
          classFor={(v) => `fst-${v}`}
          onToggle={(v) => onChange({ ...filter, statuses: toggled(filter.statuses, v, FINDING_STATUSES) })}
        />
        <button type="button" className="link clear-filters" onClick={onClear} disabled={!filtering}>
          Clear filters
        </button>
      </div>
    </div>
  );
}
