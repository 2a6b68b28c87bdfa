/**
 * The console's navigation (issue 38, part D) in headless Chromium at 1440 and 390 px: the
 * Overview groups by a tag of the keys and shows each group's error codes (as /v1/usage counts
 * them); a model, key, tag or error code in a chart legend or the table opens the request log
 * filtered to it and to the range; the request log filters by time range, status, key, model
 * and tag and searches request ids; every view is in the URL hash, so the back button returns
 * to the one before.
 */
import test from 'ava';
import type { Page } from 'playwright-core';
import { openPage, screenshot, signedInPage } from '../helpers/console-page.ts';
import { consoleWithTraffic, KNOWN_ID, TRAFFIC } from '../helpers/console-traffic.ts';
import { admin } from '../helpers/ext-helpers.ts';

const WIDTHS = [
  [1440, 900, 'light'],
  [390, 844, 'dark'],
] as const;

/** The hash's parameters of the page's URL. */
const hashOf = (page: Page) => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? ''));

/** The request log's rows once it shows `n`, as [request id, key, status]. */
async function logRows(page: Page, n: number): Promise<Array<[string, string, string]>> {
  await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
  await page.locator(`[data-count="${n}"]`).waitFor();
  return page
    .locator('table.log tbody tr')
    .evaluateAll((trs: any[]) =>
      trs.map((tr) => [
        tr.getAttribute('data-request-id'),
        tr.querySelector('td[data-label="Key"]').innerText.trim(),
        tr.querySelector('td[data-label="Status"] .status').innerText.trim(),
      ]),
    ) as Promise<Array<[string, string, string]>>;
}

/** The Overview's row of group `label`. */
const groupRow = (page: Page, label: string) => page.locator(`table.groups tbody tr[data-group="${label}"]`);

/** Today in UTC: the Overview's default range, as the links carry it. */
function todayUtc() {
  const from = new Date();
  from.setUTCHours(0, 0, 0, 0);
  return { since: from.toISOString(), until: new Date(from.getTime() + 86_400_000).toISOString() };
}

test('the Overview groups by tag and shows error codes per key, as /v1/usage counts them', async (t) => {
  const gw = await consoleWithTraffic(t);
  const { since, until } = todayUtc();
  const usage = (group: string) => admin(gw, 'GET', `/v1/usage?bucket=hour&group_by=${group}&from=${since}&to=${until}`).then((r) => r.body as any[]);
  const codesOf = (entries: any[], field: string, value: string) => {
    const out: Record<string, number> = {};
    for (const e of entries.filter((e) => e[field] === value))
      for (const [c, n] of Object.entries(e.error_codes as Record<string, number>)) out[c] = (out[c] ?? 0) + n;
    return out;
  };
  const byKey = await usage('key');
  t.deepEqual(codesOf(byKey, 'key', 'second'), { upstream_error: 1 });
  t.deepEqual(codesOf(byKey, 'key', 'default'), { model_not_found: 1, invalid_request_body: 1 });
  const byTag = await usage('tag:team');

  for (const [width, height, scheme] of WIDTHS) {
    const page = await signedInPage(t, gw.url, { width, height }, scheme);
    if (!page) return;
    await page.getByRole('button', { name: 'By key' }).click();
    await groupRow(page, 'second').waitFor();
    t.is(hashOf(page).by, 'key', `${width}: the grouping is in the hash`);
    const shownCodes = async (label: string) =>
      Object.fromEntries(
        await groupRow(page, label)
          .locator('td[data-label="Error codes"] .chip')
          .evaluateAll((chips: any[]) => chips.map((c) => [c.getAttribute('data-code'), Number(c.querySelector('b').innerText)])),
      );
    t.deepEqual(await shownCodes('second'), codesOf(byKey, 'key', 'second'), `${width}: second's codes`);
    t.deepEqual(await shownCodes('default'), codesOf(byKey, 'key', 'default'), `${width}: default's codes`);
    t.deepEqual(await shownCodes('untagged'), {}, `${width}: untagged had no failure`);
    await screenshot(t, page, `drilldown-overview-by-key-${width}-${scheme}`);

    await page.getByRole('button', { name: 'By tag' }).click();
    await groupRow(page, 'ml').waitFor();
    t.is(hashOf(page).by, 'tag:team');
    t.regex(await page.locator('table.groups thead th').first().innerText(), /Tag team/);
    for (const [tag, key] of [
      ['search', 'default'],
      ['ml', 'second'],
      ['(none)', 'untagged'],
    ] as const) {
      const requests = byTag.filter((e) => (e['tag:team'] ?? '(none)') === tag).reduce((n, e) => n + e.requests, 0);
      t.is(requests, TRAFFIC[key][0] + TRAFFIC[key][1], `usage of tag ${tag}`);
      t.is(await groupRow(page, tag).locator('td[data-label="Requests"]').innerText(), String(requests), `${width}: requests of tag ${tag}`);
    }
    t.deepEqual(await shownCodes('ml'), { upstream_error: 1 });
    await screenshot(t, page, `drilldown-overview-by-tag-${width}-${scheme}`);
    await page.context().close();
  }
});

test('a key, a tag, a model or an error code in the Overview (a provider on the Models page) opens the request log filtered to it and to the range; back returns', async (t) => {
  const gw = await consoleWithTraffic(t);
  const today = todayUtc();
  for (const [width, height, scheme] of WIDTHS) {
    const page = await signedInPage(t, gw.url, { width, height }, scheme);
    if (!page) return;
    await page.getByRole('button', { name: 'By key' }).click();

    // a key in the table: its requests today
    await groupRow(page, 'second').locator('a.drill').click();
    let rows = await logRows(page, 3);
    t.true(
      rows.every(([, key]) => key === 'second'),
      `${width}: ${JSON.stringify(rows)}`,
    );
    t.deepEqual(hashOf(page), { key: 'second', ...today }, `${width}: the filters are in the hash`);
    t.is(await page.getByLabel('Key').inputValue(), 'second');
    t.is(await page.getByLabel('Time').inputValue(), 'custom');
    await screenshot(t, page, `drilldown-requests-key-${width}-${scheme}`);

    // back: the Overview as it was (by key)
    await page.goBack();
    await groupRow(page, 'second').waitFor();
    t.is(await page.getByRole('button', { name: 'By key' }).getAttribute('aria-pressed'), 'true', `${width}: back to the grouping`);

    // an error code of a key
    await groupRow(page, 'second').locator('a.chip[data-code="upstream_error"]').click();
    rows = await logRows(page, 1);
    t.deepEqual(
      rows.map(([, key, status]) => [key, status]),
      [['second', '502']],
    );
    t.deepEqual(hashOf(page), { key: 'second', error_code: 'upstream_error', ...today });
    await page.goBack();

    // a legend entry of "Errors by code"
    await page.locator('figure[data-chart="error-codes"] ul.legend a', { hasText: 'model_not_found' }).click();
    rows = await logRows(page, 1);
    t.deepEqual(
      rows.map(([, key, status]) => [key, status]),
      [['default', '404']],
    );
    await page.goBack();

    // the failed requests of a key (its error badge)
    await groupRow(page, 'default').locator('td[data-label="Errors"] a').click();
    rows = await logRows(page, 2);
    t.deepEqual(rows.map(([, , status]) => status).sort(), ['400', '404']);
    await page.goBack();

    // by tag: a tag value in the table, a tag's legend entry, and keys without the tag
    await page.getByRole('button', { name: 'By tag' }).click();
    await groupRow(page, 'ml').locator('a.drill').click();
    rows = await logRows(page, 3);
    t.true(rows.every(([, key]) => key === 'second'));
    t.is(hashOf(page).tag, 'team:ml');
    await page.goBack();
    await page.locator('figure[data-chart="requests"] ul.legend a', { hasText: 'search' }).click();
    rows = await logRows(page, 5);
    t.true(rows.every(([, key]) => key === 'default'));
    await page.goBack();
    await groupRow(page, '(none)').locator('a.drill').click();
    rows = await logRows(page, 1);
    t.deepEqual(
      rows.map(([, key]) => key),
      ['untagged'],
    );
    t.is(hashOf(page).tag, 'team:');
    await page.goBack();

    // by model: a model in the latency chart's legend
    await page.getByRole('button', { name: 'By model' }).click();
    await page.locator('figure[data-chart="latency"] ul.legend a', { hasText: 'gpt-4o' }).click();
    rows = await logRows(page, 7); // every gpt-4o request: 6 answered and the 400
    t.is(hashOf(page).model, 'gpt-4o');

    // the Models page: a provider in a legend, its requests of the last hour
    await openPage(page, 'models', 'Models & providers');
    await page.locator('figure[data-chart="attempts"] ul.legend a', { hasText: 'flaky-eu-west-1' }).click();
    rows = await logRows(page, 1);
    t.deepEqual(
      rows.map(([, key, status]) => [key, status]),
      [['second', '502']],
    );
    t.deepEqual(hashOf(page), { provider: 'flaky-eu-west-1', range: '1h' });
    await page.context().close();
  }
});

test('the request log filters by time range, status, key, model and tag, searches request ids, and keeps each view in the history', async (t) => {
  const gw = await consoleWithTraffic(t);
  const all = Object.values(TRAFFIC).reduce((n, [ok, failed]) => n + ok + failed, 0);
  for (const [width, height, scheme] of WIDTHS) {
    const page = await signedInPage(t, gw.url, { width, height }, scheme);
    if (!page) return;
    await openPage(page, 'requests', 'Requests');
    await logRows(page, all);

    // a part of a request id, any case
    await page.getByLabel('Search request ids').fill('DRILL-me');
    let rows = await logRows(page, 1);
    t.is(rows[0]![0], KNOWN_ID);
    t.is(hashOf(page).request_id, 'DRILL-me');
    await screenshot(t, page, `drilldown-search-${width}-${scheme}`);
    await page.goBack();
    await logRows(page, all);
    t.is(await page.getByLabel('Search request ids').inputValue(), '', `${width}: back clears the search box`);

    // status class, then a tag and a model on top of it; back undoes one step at a time
    await page.getByLabel('Status').selectOption('4xx');
    rows = await logRows(page, 2);
    t.deepEqual(rows.map(([, , s]) => s).sort(), ['400', '404']);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Tag').selectOption('team:search');
    await logRows(page, 5);
    await page.getByLabel('Model').selectOption('gpt-4o');
    rows = await logRows(page, 4); // default's three answers and its 400 (the 404 named another model)
    t.deepEqual(hashOf(page), { tag: 'team:search', model: 'gpt-4o' });
    await page.goBack();
    await logRows(page, 5);
    t.deepEqual(hashOf(page), { tag: 'team:search' });
    t.is(await page.getByLabel('Model').inputValue(), '');
    await page.getByLabel('Key').selectOption('second');
    await logRows(page, 0);
    await page.getByText('No request matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await logRows(page, all);

    // time range: a custom range that ended an hour ago holds nothing; the last hour holds everything
    await page.getByLabel('Time').selectOption('custom');
    const p = (n: number) => String(n).padStart(2, '0');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    const local = `${anHourAgo.getFullYear()}-${p(anHourAgo.getMonth() + 1)}-${p(anHourAgo.getDate())}T${p(anHourAgo.getHours())}:${p(anHourAgo.getMinutes())}`;
    const dayBefore = new Date(anHourAgo.getTime() - 86_400_000);
    await page.locator('input[name="since"]').fill(`${dayBefore.getFullYear()}-${p(dayBefore.getMonth() + 1)}-${p(dayBefore.getDate())}T00:00`);
    await page.locator('input[name="until"]').fill(local);
    await logRows(page, 0);
    t.truthy(hashOf(page).until);
    await screenshot(t, page, `drilldown-custom-range-${width}-${scheme}`);
    await page.getByLabel('Time').selectOption('1h');
    await logRows(page, all);
    t.deepEqual(hashOf(page), { range: '1h' });
    await page.context().close();
  }
});
