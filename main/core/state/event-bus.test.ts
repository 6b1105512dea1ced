import { describe, expect, it } from 'vitest';
import { EventBus } from './event-bus';

describe('the event bus', () => {
  it('hands events to every subscriber in order, and signals only to that signal\'s listeners — never to a subscriber of events (a console)', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    const unsubscribe = bus.subscribe((...[event]) => seen.push(`event ${event}`));
    bus.onSignal('problem', ({ key, problem }) => seen.push(`problem ${key} ${problem?.message ?? 'cleared'}`));
    const stop = bus.onSignal('capacity.window-read', () => seen.push('window read'));
    bus.publish('problems.changed', { problems: [] });
    bus.signal('problem', { key: 'github', problem: { source: 'github.token', line: null, message: 'refused' } });
    bus.signal('capacity.window-read', null);
    stop();
    bus.signal('capacity.window-read', null);
    bus.signal('problem', { key: 'github', problem: null });
    unsubscribe();
    bus.publish('problems.changed', { problems: [] });
    expect(seen).toEqual(['event problems.changed', 'problem github refused', 'window read', 'problem github cleared']);
  });
});
