// The Electron shell itself, launched from the build: the window, the preload's surface, IPC both
// ways, the link policy and the tray. Everything behind the shell (the core, the renderer) has
// its own tests; this suite checks what only a real Electron can show.
import { expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { isAbsolute, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LoopdeckBridge, RpcResult } from '../shared/contract';
import { createElectronRunner, launchBuiltApp, ROOT } from './electron-app';

const HOUR = 3_600_000;
const PR = 'https://github.com/acme/radon/pull/88';

/** An ISO stamp with a UTC offset, as the runner's wrapper writes them. */
function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/**
 * The page's global object (`window`; this file is typed without the DOM) as far as the tests use
 * it: what the preload exposed, the page's own open/location, and what the tests hang on it.
 * Functions passed to `page.evaluate` run in the page, so each casts `globalThis` itself.
 */
interface PageGlobals {
  loopdeck: LoopdeckBridge;
  loopChanged?: unknown[];
  open(url: string, target?: string, features?: string): unknown;
  location: { href: string };
}

/** Call a command through the preload from inside the page, exactly as the renderer does. */
function invokeInPage(page: Page, name: string, input: unknown): Promise<RpcResult> {
  return page.evaluate(([n, i]) => (globalThis as unknown as PageGlobals).loopdeck.invoke(n, i), [name, input] as const);
}

/** What the main process says about its only window. */
function windowState(app: ElectronApplication): Promise<{ count: number; visible: boolean; destroyed: boolean; id: number | null }> {
  return app.evaluate(({ BrowserWindow }) => {
    const all = BrowserWindow.getAllWindows();
    const win = all[0];
    return { count: all.length, visible: win?.isVisible() ?? false, destroyed: win?.isDestroyed() ?? true, id: win?.id ?? null };
  });
}

test.describe.configure({ mode: 'serial' });

test.describe('the Electron shell', () => {
  const runner = createElectronRunner();
  const now = Date.now();
  const date = new Date(now).toISOString().slice(0, 10);
  let app: ElectronApplication;
  let page: Page;

  test.beforeAll(async () => {
    runner.write(date, 'audit.status', `audit ${stamp(new Date(now - 3 * HOUR))} STARTED\naudit ${stamp(new Date(now - 2 * HOUR))} OK\n`);
    runner.write(date, 'remediate.status', `remediate ${stamp(new Date(now - 2 * HOUR))} STARTED\n`);
    ({ app, window: page } = await launchBuiltApp(runner));
  });

  test.afterAll(async () => {
    await app?.close();
  });

  test('keeps its data in the temporary folder, not the operator’s', async () => {
    const userData = await app.evaluate(({ app: electronApp }) => electronApp.getPath('userData'));
    const inside = relative(runner.root, userData);
    expect(inside === '' || inside.startsWith('..') || isAbsolute(inside), `userData ${userData} is outside ${runner.root}`).toBe(false);
  });

  test('loads the console from the built files', async () => {
    await expect(page.getByTestId('review')).toBeVisible();
    expect(page.url().split('#')[0]).toBe(pathToFileURL(join(ROOT, 'out', 'renderer', 'index.html')).href);
    await expect.poll(() => windowState(app)).toMatchObject({ count: 1, visible: true, destroyed: false });
    expect(await page.title()).toBe('Loopdeck');
  });

  test('the preload exposes only invoke and on, and nothing of Node or ipcRenderer', async () => {
    const surface = await page.evaluate(() => {
      const w = globalThis as unknown as Record<string, unknown> & { loopdeck: Record<string, unknown> };
      return {
        keys: Object.keys(w.loopdeck).sort(),
        types: [typeof w.loopdeck['invoke'], typeof w.loopdeck['on']],
        leaked: ['require', 'process', 'module', 'Buffer', 'ipcRenderer', 'electron'].filter((name) => name in w),
      };
    });
    expect(surface).toEqual({ keys: ['invoke', 'on'], types: ['function', 'function'], leaked: [] });
  });

  test('a command round-trips over IPC, validated by the same dispatch', async () => {
    const info = await invokeInPage(page, 'app.info', {});
    const userData = await app.evaluate(({ app: electronApp }) => electronApp.getPath('userData'));
    expect(info).toMatchObject({ ok: true, output: { shell: 'electron', config: { state: 'loaded', path: runner.configPath }, dataDir: userData, demo: false } });
    expect(await invokeInPage(page, 'app.info', { extra: 1 })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(await invokeInPage(page, 'shell.exec', { cmd: 'id' })).toMatchObject({ ok: false, error: { code: 'unknown-command' } });
  });

  test('an event arrives: a followed file grows, the bridge delivers loop.changed and the view updates', async () => {
    await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      w.loopChanged = [];
      w.loopdeck.on('loop.changed', (payload: unknown) => w.loopChanged?.push(payload));
    });
    await page.getByTestId('nav-loops').click();
    const remediate = page.getByTestId(`phase-reliability-${date}-remediate`);
    await expect(remediate).toHaveAttribute('data-status', 'running');

    runner.append(date, 'remediate.status', `remediate ${stamp(new Date())} OK\n`);
    await expect(remediate).toHaveAttribute('data-status', 'ok', { timeout: 15_000 });
    const events = await page.evaluate(() => (globalThis as unknown as PageGlobals).loopChanged ?? []);
    expect(events).toContainEqual(expect.objectContaining({ loop: 'reliability' }));
  });

  test('an external link is refused unless https; https goes to the system browser, never a window', async () => {
    // Record instead of launching a browser: the shell calls shell.openExternal at the moment it
    // decides, so replacing it in the main process shows every decision without opening anything.
    const stubbed = await app.evaluate(({ shell }) => {
      const opened: string[] = [];
      const stub = async (url: string): Promise<void> => {
        opened.push(url);
      };
      (globalThis as { loopdeckOpened?: string[] }).loopdeckOpened = opened;
      shell.openExternal = stub;
      return shell.openExternal === stub;
    });
    expect(stubbed, 'shell.openExternal could not be replaced in the main process; the test would open a real browser').toBe(true);
    const opened = (): Promise<string[]> => app.evaluate(() => [...((globalThis as { loopdeckOpened?: string[] }).loopdeckOpened ?? [])]);
    const before = await windowState(app);

    // window.open (what the console's links call): refused for http:, javascript:, file:; the https
    // one, opened last, is decided after them, so once it is recorded the others were refused.
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).open('http://example.com/plain', '_blank', 'noopener,noreferrer');
      (globalThis as unknown as PageGlobals).open('javascript:alert(1)', '_blank');
      (globalThis as unknown as PageGlobals).open('file:///etc/passwd', '_blank');
      (globalThis as unknown as PageGlobals).open('https://example.com/allowed', '_blank', 'noopener,noreferrer');
    });
    await expect.poll(opened).toContain('https://example.com/allowed');

    // Navigating the window itself: an http page is refused, an https one goes outside too.
    await page.evaluate(() => {
      setTimeout(() => {
        (globalThis as unknown as PageGlobals).location.href = 'http://example.com/navigate';
      });
    });
    await page.evaluate(() => {
      setTimeout(() => {
        (globalThis as unknown as PageGlobals).location.href = 'https://example.com/navigate';
      });
    });
    await expect.poll(opened).toContain('https://example.com/navigate');

    // A pull request link in the console, as the operator clicks it.
    runner.append(date, 'deliver.status', `deliver ${stamp(new Date())} STARTED\ndeliver ${stamp(new Date())} 1 PR(s) green, ready to merge: ${PR}\n`);
    await page.getByTestId('nav-prs').click();
    await page.getByTestId('pr-link-88').click({ timeout: 15_000 });
    await expect.poll(opened).toContain(PR);

    expect(await opened()).toEqual(['https://example.com/allowed', 'https://example.com/navigate', PR]);
    expect(app.windows()).toHaveLength(1);
    expect(await windowState(app)).toEqual(before);
    expect(page.url().startsWith('file://')).toBe(true);
    await expect(page.getByTestId('pr-link-88')).toBeVisible();
  });

  test('closing the window hides it to the tray; the app keeps running and shows it again', async () => {
    const before = await windowState(app);
    // What the window's close button does.
    await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.close());
    await expect.poll(() => windowState(app)).toEqual({ ...before, visible: false });
    // Still running: the core answers through the hidden window's preload.
    expect(await invokeInPage(page, 'app.info', {})).toMatchObject({ ok: true, output: { shell: 'electron' } });
    // The tray's "Show Loopdeck" and a second launch both call the same showWindow as activate.
    await app.evaluate(({ app: electronApp }) => {
      electronApp.emit('activate');
    });
    await expect.poll(() => windowState(app)).toEqual(before);
    await expect(page.getByTestId('nav-prs')).toBeVisible();
  });

  test('the tray shows the worst state and the waiting notices; acknowledging one brings the count down', async () => {
    // Record what the shell sets on its tray from now on (the Tray API cannot read a tooltip back),
    // calling through so the real tray still changes: the shell calls these when the state moves.
    const stubbed = await app.evaluate(({ Tray }) => {
      const seen = { tooltips: [] as string[], titles: [] as string[], images: [] as boolean[] };
      (globalThis as { loopdeckTray?: typeof seen }).loopdeckTray = seen;
      const proto = Tray.prototype as unknown as Record<'setToolTip' | 'setTitle' | 'setImage', (this: unknown, ...args: unknown[]) => void>;
      const setToolTip = proto.setToolTip;
      const setTitle = proto.setTitle;
      const setImage = proto.setImage;
      proto.setToolTip = function (this: unknown, ...args: unknown[]) {
        seen.tooltips.push(String(args[0]));
        setToolTip.apply(this, args);
      };
      proto.setTitle = function (this: unknown, ...args: unknown[]) {
        seen.titles.push(String(args[0]));
        setTitle.apply(this, args);
      };
      proto.setImage = function (this: unknown, ...args: unknown[]) {
        seen.images.push(!(args[0] as { isEmpty(): boolean }).isEmpty());
        setImage.apply(this, args);
      };
      return proto.setToolTip !== setToolTip && proto.setTitle !== setTitle && proto.setImage !== setImage;
    });
    expect(stubbed, 'Tray.prototype could not be wrapped in the main process; the tray cannot be observed').toBe(true);
    const seen = (): Promise<{ tooltips: string[]; titles: string[]; images: boolean[] }> =>
      app.evaluate(() => {
        const s = (globalThis as { loopdeckTray?: { tooltips: string[]; titles: string[]; images: boolean[] } }).loopdeckTray;
        return { tooltips: [...(s?.tooltips ?? [])], titles: [...(s?.titles ?? [])], images: [...(s?.images ?? [])] };
      });
    const lastTooltip = async (): Promise<string> => (await seen()).tooltips.at(-1) ?? '';
    /** Notices of priority ≥ 1 neither acknowledged nor snoozed, as the core lists them. */
    const waiting = async (): Promise<{ key: string; title: string }[]> => {
      const snap = await invokeInPage(page, 'state.snapshot', {});
      if (!snap.ok) throw new Error(`state.snapshot failed: ${JSON.stringify(snap.error)}`);
      const notices = (snap.output as { notices: { key: string; title: string; priority: number; acknowledgedAt: string | null; snoozedUntil: string | null }[] }).notices;
      return notices.filter((n) => n.priority >= 1 && n.acknowledgedAt === null && n.snoozedUntil === null).map((n) => ({ key: n.key, title: n.title }));
    };
    const named = (n: number): string => `${n} ${n === 1 ? 'notice' : 'notices'} to acknowledge`;

    // The deliver phase fails: a priority-1 notice (phase-failed) and a failed newest cycle.
    runner.append(date, 'deliver.status', `deliver ${stamp(new Date())} FAILED 1\n`);
    await expect.poll(async () => (await waiting()).some((n) => n.title === 'reliability deliver failed'), { timeout: 15_000 }).toBe(true);
    const before = await waiting();
    await expect.poll(lastTooltip, { timeout: 15_000 }).toMatch(new RegExp(`^Loopdeck: (attention|failing) · ${named(before.length)}`));
    expect(await lastTooltip()).toMatch(/^Loopdeck: failing · .*reliability \d{4}-\d{2}-\d{2} failed/);
    expect((await seen()).images.at(-1), 'the tray was given an empty image for its new level').toBe(true);
    if (process.platform === 'darwin') expect((await seen()).titles.at(-1)).toBe(String(before.length));

    const failed = before.find((n) => n.title === 'reliability deliver failed');
    expect(await invokeInPage(page, 'notices.ack', { key: failed?.key ?? '' })).toMatchObject({ ok: true });
    const after = before.length - 1;
    if (after === 0) await expect.poll(lastTooltip, { timeout: 15_000 }).not.toContain('to acknowledge');
    else await expect.poll(lastTooltip, { timeout: 15_000 }).toContain(named(after));
    // Acknowledged is not fixed: the newest cycle still failed.
    expect(await lastTooltip()).toMatch(/^Loopdeck: failing/);
    if (process.platform === 'darwin') expect((await seen()).titles.at(-1)).toBe(after === 0 ? '' : String(after));
  });
});
