import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { HOST_NOT_REACHABLE_NOW, TRANSCRIPT_BEING_READ, type TranscriptInfo } from '../../../../shared/transcript-domain';
import { stripEscapes } from '../../../../shared/transcript-text';
import { transcriptKey, useDeck } from '../../store';
import { navigate, useScrollFocus } from '../../ui/react-hooks';
import { RowCache, type TranscriptRow } from './row-cache';
import { lastTop, markFraction, ROW_PX, rowsIn, scrollTopFor, spacerPx, topLineAt } from './scroll-map';
import { MARK_LABEL, MarkList, TranscriptHeader } from './TranscriptParts';
import { TranscriptText } from './TranscriptText';
import { useTranscriptSearch } from './use-transcript-search';
import './transcript.css';
import { messageOf } from '../../../../shared/errors';

// A phase's transcript, readable at any size: only the rows on screen exist in the DOM and only
// their blocks are asked of main (row-cache.ts), the scrollbar means position in the file
// (scroll-map.ts), and it opens on the last screen, following the file while the phase runs.

/** Which transcript, and where to open it. */
export interface TranscriptViewProps {
  readonly loop: string;
  readonly date: string;
  readonly phase: string;
  /** Open with this line (1-based) at the top, highlighted; null: the last screen. */
  readonly line: number | null;
}

/** How often the view asks again while the transcript is being read for the first time. */
const OPEN_RETRY_MS = 1000;

/** The most lines one Copy takes (fetched in pages of 2,000). */
const MAX_COPY_LINES = 20_000;


export function TranscriptView({ loop, date, phase, line }: TranscriptViewProps) {
  const open = useDeck((s) => s.transcriptOpen);
  // Long lines scroll sideways in their own box: a tab stop while they do (a phone, mostly).
  const rowsFocus = useScrollFocus<HTMLDivElement>();
  const fetchLines = useDeck((s) => s.transcriptLines);
  const ref = useMemo(() => ({ loop, date, phase }), [loop, date, phase]);
  const tail = useDeck((s) => s.transcriptTails[transcriptKey(ref)]);

  const [info, setInfo] = useState<TranscriptInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [viewportPx, setViewportPx] = useState(600);
  const [top, setTop] = useState(1);
  const [follow, setFollow] = useState(line === null);
  const [, setVersion] = useState(0);
  const [selected, setSelected] = useState<{ from: number; to: number } | null>(line === null ? null : { from: line, to: line });
  const [copied, setCopied] = useState<string | null>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const fileRef = useRef<{ ino: string; size: number } | null>(null);

  const lines = Math.max(info?.lines ?? 0, tail && info && tail.ino === info.ino ? tail.lines : 0);
  const visible = rowsIn(viewportPx);

  const cache = useMemo(
    () =>
      new RowCache(
        async (from, count) => {
          const answer = await fetchLines({ ...ref, at: { line: from }, count });
          const known = fileRef.current;
          if (known && (answer.ino !== known.ino || answer.size < known.size)) {
            // Replaced (another inode) or truncated under the view: what is held is not this file.
            setNotice(answer.ino !== known.ino ? 'The file was replaced while open; shown afresh.' : 'The file was truncated while open; shown afresh.');
            fileRef.current = { ino: answer.ino, size: answer.size };
            setInfo((before) => (before ? { ...before, ino: answer.ino, size: answer.size, lines: answer.lines } : before));
            throw new Error('replaced');
          }
          fileRef.current = { ino: answer.ino, size: answer.size };
          return answer.rows;
        },
        () => setVersion((v) => v + 1),
      ),
    [fetchLines, ref],
  );

  // Open: the file now and its marks. While Loopdeck is still reading it for the first time (its
  // line index), it says so and asks again.
  const [waiting, setWaiting] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let retry: number | null = null;
    setInfo(null);
    setError(null);
    const attempt = (): void => {
      open(ref).then(
        (answer) => {
          if (!live) return;
          fileRef.current = { ino: answer.ino, size: answer.size };
          setWaiting(null);
          setInfo(answer);
        },
        (err: unknown) => {
          if (!live) return;
          const message = messageOf(err);
          // Both pass: the first read ends, the host (re)connects. Asked again until then.
          if (message.includes(TRANSCRIPT_BEING_READ) || message.includes(HOST_NOT_REACHABLE_NOW)) {
            setWaiting(message);
            retry = window.setTimeout(attempt, OPEN_RETRY_MS);
          } else setError(message);
        },
      );
    };
    attempt();
    return () => {
      live = false;
      if (retry !== null) window.clearTimeout(retry);
    };
  }, [open, ref]);

  // Replaced or truncated (told by the tail event, or found by a fetch): start again from the file as it is.
  const ino = info?.ino;
  useEffect(() => {
    if (!tail || !ino || !fileRef.current) return;
    if (tail.ino !== fileRef.current.ino || tail.size < fileRef.current.size) {
      setNotice(tail.ino !== fileRef.current.ino ? 'The file was replaced while open; shown afresh.' : 'The file was truncated while open; shown afresh.');
      fileRef.current = { ino: tail.ino, size: tail.size };
      setInfo((before) => (before ? { ...before, ino: tail.ino, size: tail.size, lines: tail.lines } : before));
      cache.reset();
    }
  }, [tail, ino, cache]);
  useEffect(() => {
    if (notice) cache.reset();
  }, [notice, cache]);

  // The viewport's height.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const measure = () => setViewportPx(el.clientHeight || 600);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [info !== null]);

  const scrollTo = useCallback(
    (first: number) => {
      const el = scrollRef.current;
      if (!el) return;
      const t = Math.max(1, Math.min(lastTop(lines, visible), first));
      el.scrollTop = scrollTopFor(t, lines, viewportPx);
      setTop(t);
    },
    [lines, visible, viewportPx],
  );

  // Where it is placed: the asked line (a few rows of context above it, selected), else the last
  // screen, followed. On opening, and again whenever the route's line changes while this
  // transcript is shown (a second link followed or pasted, Back after a jump): the view is keyed
  // by the transcript, so it is not mounted again, and only rows not yet held are fetched.
  const placed = useRef<{ readonly line: number | null } | null>(null);
  useLayoutEffect(() => {
    if (!info || (placed.current !== null && placed.current.line === line)) return;
    placed.current = { line };
    if (line !== null) {
      setFollow(false);
      setSelected({ from: line, to: line });
      scrollTo(line - 3);
    } else {
      setFollow(true);
      setSelected(null);
      scrollTo(lastTop(info.lines, visible));
    }
  }, [info, line, scrollTo, visible]);

  // Follow: pinned to the end while the phase runs, unless scrolled up.
  useLayoutEffect(() => {
    if (follow && info) scrollTo(lastTop(lines, visible));
  }, [follow, lines, info, scrollTo, visible]);

  useEffect(() => {
    cache.want(top, visible, lines);
  }, [cache, top, visible, lines]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    const t = topLineAt(el.scrollTop, lines, viewportPx);
    setTop(t);
    const atEnd = t >= lastTop(lines, visible);
    if (!atEnd && follow) setFollow(false);
    else if (atEnd && !follow && info?.running) setFollow(true);
  };

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, () => number> = {
      Home: () => 1,
      End: () => lastTop(lines, visible),
      PageDown: () => top + visible - 1,
      PageUp: () => top - visible + 1,
      ArrowDown: () => top + 1,
      ArrowUp: () => top - 1,
    };
    const move = moves[e.key];
    if (!move || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    const to = move();
    setFollow(e.key === 'End' && !!info?.running);
    scrollTo(to);
  };

  const jump = (n: number) => {
    setFollow(false);
    setSelected({ from: n, to: n });
    scrollTo(n - 3);
    navigate({ view: 'log', loop, date, phase, line: n });
  };

  const {
    query, regex, ignoreCase, found, hit, searching, error: searchError, setQuery, setRegex, setIgnoreCase, run: runSearch, step,
  } = useTranscriptSearch(ref, jump);

  const select = (n: number, extend: boolean) => {
    setSelected((s) => (extend && s ? { from: Math.min(s.from, n), to: Math.max(s.to, n) } : { from: n, to: n }));
  };
  const copy = async () => {
    if (!selected) return;
    const to = Math.min(selected.to, selected.from + MAX_COPY_LINES - 1);
    const out: string[] = [];
    for (let from = selected.from; from <= to; from += 2000) {
      const answer = await fetchLines({ ...ref, at: { line: from }, count: Math.min(2000, to - from + 1) });
      for (const r of answer.rows) out.push(stripEscapes(r.text));
      if (answer.rows.length === 0) break;
    }
    await navigator.clipboard.writeText(`${out.join('\n')}\n`);
    setCopied(`${out.length} line${out.length === 1 ? '' : 's'} copied`);
  };

  if (error) {
    return (
      <section className="transcript card" data-testid="transcript">
        <TranscriptHeader loop={loop} date={date} phase={phase} />
        <p className="error-text" role="alert" data-testid="transcript-error">
          {error}
        </p>
      </section>
    );
  }
  if (!info) {
    return (
      <section className="transcript card" data-testid="transcript" aria-busy="true">
        <TranscriptHeader loop={loop} date={date} phase={phase} />
        <p className="muted" role="status" data-testid="transcript-waiting">
          {waiting ? 'Loopdeck is reading this transcript for the first time (it keeps an index of its lines); it opens as soon as that is done.' : 'Opening the transcript…'}
        </p>
      </section>
    );
  }

  const rows = cache.rows(top, Math.min(visible, Math.max(0, lines - top + 1)));
  const gutter = `${String(Math.max(lines, 1)).length + 1}ch`;
  const hitLines = new Set(found?.hits.map((h) => h.n));
  return (
    <section className="transcript card" data-testid="transcript" data-lines={lines} data-top={top} data-follow={follow ? 'true' : 'false'}>
      <TranscriptHeader loop={loop} date={date} phase={phase} info={info} lines={lines} />
      <div className="transcript-tools">
        <form
          className="transcript-search"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            if (found && found.hits.length > 0) step(1);
            else void runSearch();
          }}
        >
          <input
            type="search"
            aria-label="Search the transcript"
            placeholder={regex ? 'Search (extended regex)…' : 'Search…'}
            value={query}
            data-testid="transcript-search"
            onChange={(e) => setQuery(e.target.value)}
          />
          <label className="toggle-chip" title="Match case">
            <input type="checkbox" checked={!ignoreCase} onChange={(e) => setIgnoreCase(!e.target.checked)} data-testid="transcript-case" /> Aa
          </label>
          <label className="toggle-chip" title="Extended regular expression (grep -E)">
            <input type="checkbox" checked={regex} onChange={(e) => setRegex(e.target.checked)} data-testid="transcript-regex" /> .*
          </label>
          <button type="submit" disabled={!query || searching}>
            {searching ? 'Searching…' : found ? 'Next' : 'Search'}
          </button>
          {found ? (
            <>
              <button type="button" onClick={() => step(-1)} disabled={found.hits.length === 0} aria-label="Previous hit">
                ↑
              </button>
              <span className="muted small" data-testid="transcript-hits" aria-live="polite">
                {found.hits.length === 0
                  ? 'no match'
                  : `${hit + 1} of ${found.total}${found.truncated || found.timedOut ? '+' : ''}`}
                {found.timedOut ? ' (search stopped at its time limit)' : found.truncated ? ` (first ${found.hits.length} shown)` : ''}
              </span>
            </>
          ) : null}
          {searchError ? (
            <span className="error-text small" role="alert">
              {searchError}
            </span>
          ) : null}
        </form>
        <div className="transcript-actions">
          {info.running ? (
            <button type="button" className={follow ? 'toggle-on' : ''} aria-pressed={follow} onClick={() => setFollow(!follow)} data-testid="transcript-follow">
              Follow
            </button>
          ) : null}
          <button type="button" disabled={!selected} onClick={() => void copy()} data-testid="transcript-copy">
            {selected && selected.to > selected.from ? `Copy lines ${selected.from}–${selected.to}` : selected ? `Copy line ${selected.from}` : 'Copy'}
          </button>
          {copied ? (
            <span className="muted small" aria-live="polite">
              {copied}
            </span>
          ) : null}
        </div>
      </div>
      {notice ? (
        <div className="callout callout-warn" role="status" data-testid="transcript-notice">
          {notice}
        </div>
      ) : null}
      <div className="transcript-body">
        <div
          className="transcript-scroll"
          ref={scrollRef}
          tabIndex={0}
          role="log"
          aria-label={`Transcript of ${phase}, ${lines} lines`}
          onScroll={onScroll}
          onKeyDown={onKey}
          data-testid="transcript-scroll"
        >
          <div className="transcript-spacer" style={{ height: spacerPx(lines, viewportPx) }}>
            <div className="transcript-rows" ref={rowsFocus} style={{ height: viewportPx, ['--gutter' as string]: gutter }}>
              {lines === 0 ? <p className="muted transcript-empty">The transcript is empty.</p> : null}
              {rows.map((r: TranscriptRow | undefined, i) => {
                const n = top + i;
                const isSelected = selected !== null && n >= selected.from && n <= selected.to;
                return (
                  <div
                    key={n}
                    className={`tl${isSelected ? ' tl-selected' : ''}${hitLines.has(n) ? ' tl-hit' : ''}`}
                    data-testid={`transcript-line-${n}`}
                    style={{ height: ROW_PX }}
                  >
                    <button type="button" className="ln" tabIndex={-1} onClick={(e) => select(n, e.shiftKey)} aria-label={`Select line ${n}`}>
                      {n}
                    </button>
                    <span className="tx">{r ? <TranscriptText text={r.text} cut={r.cut} /> : <span className="muted">…</span>}</span>
                  </div>
                );
              })}
            </div>
          </div>
        </div>
        <div className="transcript-marks" aria-hidden="true">
          {info.marks.map((m) => (
            <button
              key={`${m.kind}-${m.n}`}
              type="button"
              tabIndex={-1}
              className={`tm tm-${m.kind}`}
              style={{ top: `${markFraction(m.n, lines) * 100}%` }}
              title={`${MARK_LABEL[m.kind]} at line ${m.n}: ${m.text}`}
              onClick={() => jump(m.n)}
            />
          ))}
          {found?.hits.slice(0, 200).map((h) => (
            <span key={`hit-${h.n}`} className="tm tm-hit" style={{ top: `${markFraction(h.n, lines) * 100}%` }} />
          ))}
        </div>
      </div>
      <MarkList marks={info.marks} onJump={jump} />
    </section>
  );
}
