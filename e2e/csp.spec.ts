import { expect, test, type ConsoleMessage } from '@playwright/test';
import { CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_HEADER } from '../shared/csp';
import { serve, type Served } from './serve-fixture';

const VIEWS = ['review', 'notices', 'loops', 'findings', 'prs', 'capacity', 'drills'] as const;

test.describe('the Content-Security-Policy in serve mode', () => {
  let served: Served;

  test.beforeAll(async () => {
    // The demo fills every view: loops, findings, notices, drills, the capacity charts.
    served = await serve([], {}, 'demo');
  });

  test.afterAll(async () => {
    await served.stop();
  });

  test('the page and its assets carry the shared policy, and no view breaks it', async ({ page }) => {
    const complaints: string[] = [];
    const note = (m: ConsoleMessage): void => {
      if (/Content[- ]Security[- ]Policy/i.test(m.text())) complaints.push(`${m.type()}: ${m.text()}`);
    };
    page.on('console', note);
    page.on('pageerror', (e) => complaints.push(`pageerror: ${e.message}`));
    const headers = new Map<string, string | undefined>();
    page.on('response', (r) => {
      if (new URL(r.url()).origin === served.origin) headers.set(new URL(r.url()).pathname, r.headers()['content-security-policy']);
    });

    await page.goto(served.url);
    // The WebSocket to the same origin is open: 'self' in connect-src allows it.
    await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 20_000 });
    expect(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toBe(CONTENT_SECURITY_POLICY);

    for (const view of VIEWS) {
      await page.getByTestId(`nav-${view}`).click();
      await expect(page.getByTestId(`nav-${view}`)).toHaveAttribute('aria-current', 'page');
    }
    await page.getByTestId('nav-capacity').click();
    await expect(page.locator('[data-testid^="capacity-chart-"] svg').first()).toBeVisible({ timeout: 20_000 });

    const scripts = [...headers.keys()].filter((p) => p.endsWith('.js') || p.endsWith('.css'));
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const path of ['/', ...scripts]) expect(headers.get(path), path).toBe(CONTENT_SECURITY_POLICY_HEADER);
    expect(complaints).toEqual([]);

    // The control: the policy is enforced and its complaints are seen, so the empty list above means something.
    // A string, since this file is type-checked without the DOM library.
    const ran = await page.evaluate(`(() => {
      const script = document.createElement('script');
      script.textContent = 'document.body.dataset.inline = "ran"';
      document.head.append(script);
      return document.body.dataset.inline ?? 'blocked';
    })()`);
    expect(ran).toBe('blocked');
    await expect.poll(() => complaints.length).toBeGreaterThan(0);
  });
});
