/**
 * The console's text and layout (issue 38, part D) in headless Chromium at 1440 and 390 px,
 * light and dark: provider names never break inside a word; at phone width the tab strip
 * shows that it scrolls (a fade with an arrow on each side that hides tabs, the current tab
 * in view); opening a request's details never squeezes the request log's table.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { openPage, screenshot, signedInPage } from '../helpers/console-page.ts';
import { consoleWithTraffic } from '../helpers/console-traffic.ts';

const WIDTHS = [
  [1440, 900],
  [390, 844],
] as const;
const SCHEMES = ['light', 'dark'] as const;
const PROVIDERS = ['up', 'flaky-eu-west-1'];

/**
 * Every visible text node that is exactly one of `names`, with the number of lines it takes
 * (distinct tops of its line boxes): a name broken inside a word ("u/p") takes two.
 */
function linesOfNames(page: Page, names: string[]): Promise<Array<[string, string, number]>> {
  return page.locator('main').evaluate((main: any, wanted: string[]) => {
    const out: Array<[string, string, number]> = [];
    const doc = main.ownerDocument;
    const walker = doc.createTreeWalker(main, 4 /* NodeFilter.SHOW_TEXT */);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent?.trim() ?? '';
      if (!wanted.includes(text) || n.parentElement?.closest('details:not([open]), select, option')) continue;
      const range = doc.createRange();
      range.selectNodeContents(n);
      const rects = [...range.getClientRects()].filter((r: any) => r.width > 0);
      if (rects.length === 0) continue;
      const tops = new Set(rects.map((r: any) => Math.round(r.top)));
      const where = n.parentElement.closest('[data-label], li, th, h2, figure')?.getAttribute('data-label') ?? n.parentElement.tagName;
      out.push([text, where, tops.size]);
    }
    return out;
  }, names);
}

/** The tab strip: whether it hides tabs at each end, which arrows show, and where the Alerts tab is. */
function tabStrip(page: Page) {
  return page.locator('nav.tabs').evaluate((nav: any) => {
    const win = nav.ownerDocument.defaultView;
    const box = nav.getBoundingClientRect();
    const shown = (sel: string) => {
      const el = nav.ownerDocument.querySelector(sel);
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return win.getComputedStyle(el).display !== 'none' && r.width > 0 && r.left >= 0 && r.right <= win.innerWidth + 1;
    };
    const alerts = nav.querySelector('a[href="#/alerts"]').getBoundingClientRect();
    return {
      hidesStart: nav.scrollLeft > 1,
      hidesEnd: nav.scrollLeft + nav.clientWidth < nav.scrollWidth - 1,
      arrowStart: shown('.tabs-more.start'),
      arrowEnd: shown('.tabs-more.end'),
      alertsInView: alerts.left >= box.left - 1 && alerts.right <= box.right + 1,
    };
  });
}

test('provider names stay whole words at 1440 and 390 px, light and dark', async (t) => {
  const gw = await consoleWithTraffic(t);
  for (const [width, height] of WIDTHS) {
    for (const scheme of SCHEMES) {
      const page = await signedInPage(t, gw.url, { width, height }, scheme);
      if (!page) return;
      for (const [hash, heading, ready] of [
        ['models', 'Models & providers', 'tr[data-provider="flaky-eu-west-1"]'],
        ['requests', 'Requests', 'tr[data-request-id]'],
      ] as const) {
        await openPage(page, hash, heading);
        await page.locator(ready).first().waitFor();
        await page.waitForLoadState('networkidle');
        await screenshot(t, page, `layout-${hash}-${width}-${scheme}`);
        const names = await linesOfNames(page, PROVIDERS);
        t.true(names.length >= 2, `${hash}: provider names found (${names.length})`);
        const broken = names.filter(([, , lines]) => lines > 1);
        t.deepEqual(broken, [], `${width} ${scheme} ${hash}: a provider name on more than one line`);
      }
      await page.context().close();
    }
  }
});

test('at 390 px the tab strip shows which side hides pages, its arrow scrolls to Alerts, and the current tab is in view; at 1440 px every tab shows', async (t) => {
  const gw = await consoleWithTraffic(t);
  for (const [width, height] of WIDTHS) {
    for (const scheme of SCHEMES) {
      const page = await signedInPage(t, gw.url, { width, height }, scheme);
      if (!page) return;
      let strip = await tabStrip(page);
      if (width === 1440) {
        t.deepEqual(strip, { hidesStart: false, hidesEnd: false, arrowStart: false, arrowEnd: false, alertsInView: true }, `${width} ${scheme}`);
        await page.context().close();
        continue;
      }
      // on the Overview the strip starts at its beginning and hides Alerts: the end says so
      t.like(strip, { hidesStart: false, hidesEnd: true, arrowStart: false, arrowEnd: true, alertsInView: false }, `${scheme} overview`);
      await screenshot(t, page, `layout-tabs-${width}-${scheme}`);
      await page.locator('.tabs-more.end').click();
      await page.waitForFunction(() => {
        const nav = (globalThis as any).document.querySelector('nav.tabs');
        return nav.scrollLeft + nav.clientWidth >= nav.scrollWidth - 1;
      });
      strip = await tabStrip(page);
      t.like(strip, { hidesStart: true, hidesEnd: false, arrowStart: true, arrowEnd: false, alertsInView: true }, `${scheme} after the arrow`);
      // another page from a link: its tab is brought into view
      await openPage(page, 'keys', 'Keys');
      await page.goto(`${page.url().split('#')[0]}#/alerts`);
      await page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
      await page.waitForFunction(() => {
        const nav = (globalThis as any).document.querySelector('nav.tabs');
        const a = nav.querySelector('[aria-current="page"]').getBoundingClientRect();
        const box = nav.getBoundingClientRect();
        return a.left >= box.left - 1 && a.right <= box.right + 1;
      });
      t.true((await tabStrip(page)).arrowStart, `${scheme}: on Alerts the start shows it hides pages`);
      await screenshot(t, page, `layout-tabs-alerts-${width}-${scheme}`);
      await page.context().close();
    }
  }
});

/** The request log table's width and the lines its Time and Latency cells take, row by row. */
function logTable(page: Page) {
  return page.locator('table.log').evaluate((table: any) => {
    const lines = (td: any) => {
      const range = table.ownerDocument.createRange();
      range.selectNodeContents(td);
      return new Set([...range.getClientRects()].filter((r: any) => r.width > 0).map((r: any) => Math.round(r.top))).size;
    };
    const rows = [...table.querySelectorAll('tbody tr')].map((tr: any) => [
      lines(tr.querySelector('td[data-label="Time"]')),
      lines(tr.querySelector('td[data-label="Latency"]')),
      Math.round(tr.getBoundingClientRect().height),
    ]);
    return { width: Math.round(table.getBoundingClientRect().width), rows };
  });
}

test("opening a request's details keeps the log table's columns at 1440 px, and fills the screen at 390 px", async (t) => {
  const gw = await consoleWithTraffic(t);
  for (const [width, height] of WIDTHS) {
    for (const scheme of SCHEMES) {
      const page = await signedInPage(t, gw.url, { width, height }, scheme);
      if (!page) return;
      await openPage(page, 'requests', 'Requests');
      await page.locator('tr[data-request-id]').nth(8).waitFor();
      await page.getByLabel('Live').uncheck();
      const before = await logTable(page);
      if (width === 1440)
        t.true(
          before.rows.every(([time, latency]) => time === 1 && latency === 1),
          `${scheme}: one line per time and latency before`,
        );
      await page.locator('tr[data-request-id]').first().click();
      const detail = page.getByRole('complementary', { name: 'Request details' });
      await detail.getByText('Request id').waitFor();
      const after = await logTable(page);
      t.deepEqual(after, before, `${width} ${scheme}: the table is as it was`);
      const box = (await detail.boundingBox())!;
      t.true(
        box.x >= 0 && box.x + box.width <= width + 1 && box.y >= 0 && box.y + box.height <= height + 1,
        `${width} ${scheme}: the details fit the screen (${JSON.stringify(box)})`,
      );
      if (width === 390) t.deepEqual(box, { x: 0, y: 0, width, height }, `${scheme}: the details take the whole phone screen`);
      await screenshot(t, page, `layout-request-detail-${width}-${scheme}`, { fullPage: false });
      await detail.getByRole('button', { name: 'Close details' }).click();
      await detail.waitFor({ state: 'detached' });
      t.truthy(await page.evaluate<string | null>('document.activeElement?.getAttribute("data-request-id") ?? null'), 'focus is back on the row');
      await page.context().close();
    }
  }
});
