/**
 * The otel extension's span account: the recent list (the console's trace view) takes at most
 * RECENT_TRACES_PER_SECOND new traces a second and keeps only their spans once exported;
 * every span still goes to the exporter and is counted.
 */
import test from 'ava';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { RECENT_TRACES_PER_SECOND, SpanAccount } from '../../plugins/extensions/otel/span-account.ts';

function span(id: number): ReadableSpan {
  return {
    name: `s${id}`,
    spanContext: () => ({ traceId: id.toString(16).padStart(32, '0'), spanId: '1'.repeat(16), traceFlags: 1 }),
  } as unknown as ReadableSpan;
}

function accountWith(keep: number): { account: SpanAccount; sent: ReadableSpan[][] } {
  const sent: ReadableSpan[][] = [];
  const inner: SpanExporter = {
    export(spans, done) {
      sent.push(spans);
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: () => Promise.resolve(),
  };
  return { account: new SpanAccount(inner, 100, keep), sent };
}

test('at most RECENT_TRACES_PER_SECOND traces a second are admitted; the next second admits again', (t) => {
  const { account } = accountWith(1000);
  const second = 1_700_000_000_000;
  let admitted = 0;
  for (let i = 0; i < 3 * RECENT_TRACES_PER_SECOND; i++) if (account.admitRecent(second + (i % 1000))) admitted++;
  t.is(admitted, RECENT_TRACES_PER_SECOND);
  t.true(account.admitRecent(second + 1000));
});

test('the recent list keeps only marked spans, all spans are exported and counted', (t) => {
  const { account, sent } = accountWith(1000);
  const spans = Array.from({ length: 10 }, (_, i) => span(i));
  for (const s of spans.slice(0, 3)) account.markRecent(s);
  account.export(spans, () => undefined);
  t.is(sent[0]!.length, 10);
  t.is(account.exported, 10);
  t.deepEqual(
    account.recent().map((s) => s.name),
    ['s0', 's1', 's2'],
  );
});

test('recent_spans = 0: nothing is admitted and nothing is kept', (t) => {
  const { account } = accountWith(0);
  t.false(account.admitRecent(Date.now()));
  account.export([span(1)], () => undefined);
  t.deepEqual(account.recent(), []);
});
