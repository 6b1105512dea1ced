import { describe, expect, it } from 'vitest';
import type { PhaseContention } from '../../../../shared/domain';
import { contentionText, formatMemory } from './contention-text';

const MIN = 60_000;
const GB = 1024 ** 3;
const base: PhaseContention = { samples: 261, peakLoadPerCore: 2.6, cores: 6, minFreeBytes: 1.2 * GB, contendedMs: 41 * MIN, watchedMs: 130 * MIN, contended: true };

describe('the runner load line of a phase', () => {
  it('says the peak per core, the cores, the lowest free memory and how long it was contended of how long it was sampled', () => {
    expect(contentionText(base)).toBe('Runner load: peak 2.6 per core on 6 cores, lowest free memory 1.2 GB, contended 41m of 2h 10m');
  });

  it('leaves out the memory a host did not say, and counts the samples before there is a stretch', () => {
    expect(contentionText({ ...base, cores: 1, minFreeBytes: null, samples: 1, contendedMs: 0, watchedMs: 0, contended: false })).toBe('Runner load: peak 2.6 per core on 1 core, 1 sample so far');
  });

  it('says memory in the largest unit it fills', () => {
    expect([formatMemory(512), formatMemory(640 * 1024 ** 2), formatMemory(24 * GB)]).toEqual(['512 B', '640 MB', '24 GB']);
  });
});
