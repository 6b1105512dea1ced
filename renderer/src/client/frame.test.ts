import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../zod-setup';
import { WsServerFrameSchema } from '../../../shared/contract';
import { parseServerFrame } from './frame';

const FRAMES: readonly unknown[] = [
  { type: 'result', id: 1, result: { ok: true, output: 1 } },
  { type: 'result', id: 0, result: undefined },
  { type: 'result', id: -3, result: null, extra: 1 },
  { type: 'result', id: 1 },
  { type: 'result', id: 1.5, result: 1 },
  { type: 'result', id: 2 ** 60, result: 1 },
  { type: 'result', id: '1', result: 1 },
  { type: 'event', event: 'hosts.changed', payload: { hosts: [] } },
  { type: 'event', event: 'hosts.changed', payload: undefined, seq: 3 },
  { type: 'event', event: 'hosts.changed', payload: 1, seq: undefined },
  { type: 'event', event: 'hosts.changed', payload: 1, seq: 0 },
  { type: 'event', event: 'hosts.changed', payload: 1, seq: -1 },
  { type: 'event', event: 'hosts.changed', payload: 1, seq: 1.5 },
  { type: 'event', event: 'hosts.changed', payload: 1, seq: null },
  { type: 'event', event: 'hosts.changed' },
  { type: 'event', event: 7, payload: 1 },
  { type: 'mystery' },
  [],
  null,
  'frame',
  42,
];

const arbitraryFrame = fc.record(
  {
    type: fc.constantFrom('result', 'event', 'other'),
    id: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(2 ** 60)),
    result: fc.anything(),
    event: fc.oneof(fc.string(), fc.integer()),
    payload: fc.anything(),
    seq: fc.oneof(fc.integer({ min: -3, max: 1e6 }), fc.double(), fc.constant(null), fc.constant(undefined)),
  },
  { requiredKeys: [] },
);

describe('parseServerFrame', () => {
  it('gives the contract schema’s verdict and data on every frame of the table', () => {
    for (const frame of FRAMES) {
      const schema = WsServerFrameSchema.safeParse(frame);
      expect(parseServerFrame(frame), JSON.stringify(frame)).toEqual(schema.success ? schema.data : null);
    }
  });

  it('gives the contract schema’s verdict and data on arbitrary frames', () => {
    fc.assert(
      fc.property(arbitraryFrame, (frame) => {
        const schema = WsServerFrameSchema.safeParse(frame);
        expect(parseServerFrame(frame)).toEqual(schema.success ? schema.data : null);
      }),
      { numRuns: 2000 },
    );
  });
});
