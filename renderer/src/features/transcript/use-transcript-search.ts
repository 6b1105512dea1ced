import { useState } from 'react';
import type { TranscriptSearch } from '../../../../shared/transcript-domain';
import { useDeck } from '../../store';
import { messageOf } from '../../../../shared/errors';

/** The transcript a search runs in. */
interface TranscriptRef {
  readonly loop: string;
  readonly date: string;
  readonly phase: string;
}

/** At most this many hits are asked of main (the host's grep stops there; the total says how many more). */
const MAX_HITS = 1000;

/**
 * A search in one transcript, run where the file is: what is typed, the hits and which one is
 * current. Changing the query or an option drops the hits (they were for the old one); `jump`
 * brings a hit's line on screen.
 */
export function useTranscriptSearch(ref: TranscriptRef, jump: (line: number) => void) {
  const search = useDeck((s) => s.transcriptSearch);
  const [query, setQueryText] = useState('');
  const [regex, setRegexOn] = useState(false);
  const [ignoreCase, setIgnoreCaseOn] = useState(true);
  const [found, setFound] = useState<TranscriptSearch | null>(null);
  const [hit, setHit] = useState(0);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async () => {
    if (!query) return;
    setSearching(true);
    setError(null);
    try {
      const answer = await search({ ...ref, query, regex, ignoreCase, maxHits: MAX_HITS });
      setFound(answer);
      setHit(0);
      const first = answer.hits[0];
      if (first) jump(first.n);
    } catch (err) {
      setFound(null);
      setError(messageOf(err));
    } finally {
      setSearching(false);
    }
  };
  const step = (by: number) => {
    if (!found || found.hits.length === 0) return;
    const i = (hit + by + found.hits.length) % found.hits.length;
    setHit(i);
    const h = found.hits[i];
    if (h) jump(h.n);
  };
  const editing =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setFound(null);
    };

  return {
    query,
    regex,
    ignoreCase,
    found,
    hit,
    searching,
    error,
    setQuery: editing(setQueryText),
    setRegex: editing(setRegexOn),
    setIgnoreCase: editing(setIgnoreCaseOn),
    run,
    step,
  };
}
