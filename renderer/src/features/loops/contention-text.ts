import type { PhaseContention } from '../../../../shared/domain';
import { formatDuration } from '../../ui/format';

// How the runner's load while a phase ran is said on the phase (issue "Night against night", item 3).

/** Memory for a person: `1.2 GB`, `640 MB`. */
export function formatMemory(bytes: number): string {
  for (const [unit, size] of [['TB', 1024 ** 4], ['GB', 1024 ** 3], ['MB', 1024 ** 2], ['KB', 1024]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} B`;
}

/**
 * `Runner load: peak 2.6 per core on 6 cores, lowest free memory 1.2 GB, contended 41m of 2h 10m`;
 * before a second sample there is no stretch to speak of, so it says how many samples there are.
 */
export function contentionText(c: PhaseContention): string {
  const parts = [`peak ${c.peakLoadPerCore} per core on ${c.cores} ${c.cores === 1 ? 'core' : 'cores'}`];
  if (c.minFreeBytes !== null) parts.push(`lowest free memory ${formatMemory(c.minFreeBytes)}`);
  parts.push(c.watchedMs > 0 ? `contended ${formatDuration(c.contendedMs)} of ${formatDuration(c.watchedMs)}` : `${c.samples} ${c.samples === 1 ? 'sample' : 'samples'} so far`);
  return `Runner load: ${parts.join(', ')}`;
}
