import { expect, test } from '@playwright/test';
import { rmSync } from 'node:fs';
import { createRunner, serve } from './serve-fixture';

// The page's first script (renderer/src/early.ts) opens serve mode's socket and asks for what the
// Review's first paint needs while the main bundle is still fetched and evaluated; the client then
// takes that socket over and paints from those answers (renderer/src/client/early-socket.ts).

interface Frame {
  readonly id?: number;
  readonly name?: string;
  readonly type?: string;
}

const parse = (payload: string | Buffer): Frame => JSON.parse(String(payload)) as Frame;

test('asks for the first paint’s data before the main bundle has run, and paints from those answers', async ({ page }) => {
  const runner = createRunner();
  const served = await serve(['--config', runner.configPath, '--data', runner.dataDir]);
  try {
    const sent: Frame[] = [];
    const answered: number[] = [];
    let sockets = 0;
    page.on('websocket', (ws) => {
      sockets += 1;
      ws.on('framesent', (f) => sent.push(parse(f.payload)));
      ws.on('framereceived', (f) => {
        const frame = parse(f.payload);
        if (frame.type === 'result' && frame.id !== undefined) answered.push(frame.id);
      });
    });
    // Hold the main bundle: whatever asks now is the early script.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(served.url, { waitUntil: 'commit' });
    await expect.poll(() => [...answered].sort(), { timeout: 20_000, message: 'app.info and state.summary answered while the main bundle is held' }).toEqual([1, 2]);
    expect(sent.map((f) => f.name)).toEqual(['app.info', 'state.summary']);
    release();
    await expect(page.getByTestId('review')).toBeVisible({ timeout: 20_000 });
    // The first paint took the early answers: one socket, and neither call asked twice.
    expect(sent.filter((f) => f.name === 'app.info' || f.name === 'state.summary')).toHaveLength(2);
    expect(sockets).toBe(1);
  } finally {
    await served.stop();
    rmSync(runner.dir, { recursive: true, force: true });
  }
});
