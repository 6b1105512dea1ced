import { useDeck } from '../store';
import { useScrollFocus } from '../ui/react-hooks';

/** Things that could not be read (file, line, why), collapsed under a count. */
export function ProblemsList() {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const problems = useDeck((s) => s.problems);
  if (problems.length === 0) return null;
  return (
    <details className="problems card" data-testid="problems">
      <summary>
        <span className="problems-count">{problems.length}</span>
        {problems.length === 1 ? ' problem' : ' problems'} reading sources
        <span className="muted small"> — the rest of the state is still shown</span>
      </summary>
      <table ref={scrollFocus} className="problems-table">
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Line</th>
            <th scope="col">Problem</th>
          </tr>
        </thead>
        <tbody>
          {problems.map((p, i) => (
            <tr key={`${p.source}:${p.line ?? ''}:${i}`}>
              <td className="mono">{p.source}</td>
              <td className="num">{p.line ?? '—'}</td>
              <td>{p.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
