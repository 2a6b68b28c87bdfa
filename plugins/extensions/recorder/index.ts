/**
 * The recorder: every upstream exchange of a gateway request appended to a cassette, below any
 * translation (`upstream.observe`), with the usage and cost charged; headers by an allow-list,
 * secrets scrubbed; writes never wait. docs/record-replay.md.
 */
import { accountOf, chargedUsage, defineExtension, type RequestContext, type UpstreamAttempt, UserError } from 'gw/plugin';
import { type CaptureSettings, CassetteWriter, ExchangeCapture, headerLists } from 'gw/plugin/cassette';
import { patternMatcher, recorderSchema } from './config.ts';

const NAME = 'recorder';

export default defineExtension({
  name: NAME,
  configSchema: recorderSchema,
  gw: '^0.2.0',
  async setup({ config, hooks, upstream, secrets, resolvePath, log, metrics }) {
    const path = resolvePath(config.path);
    let failures = 0;
    const writer = await CassetteWriter.open(path, {
      maxQueueBytes: config.max_queue_bytes,
      // one line per failure burst, not per entry
      onError: (err) => {
        if (failures++ % 100 === 0) log.error({ err: err.message, path }, 'cassette write failed; entries are dropped');
      },
    }).catch((err: Error) => {
      throw new UserError(`extensions.recorder.path: cannot append to ${path}: ${err.message}`);
    });
    const capture: CaptureSettings = { headers: headerLists(config.headers), maxBytes: config.max_body_bytes };
    const models = patternMatcher(config.filter.models);
    const keys = config.filter.keys && new Set(config.filter.keys);
    const routes = config.filter.routes && new Set(config.filter.routes);
    /** Requests being recorded → their exchanges so far. */
    const recording = new Map<string, ExchangeCapture[]>();

    // an attempt of a request the filter keeps opens its record; taps here also make the
    // kernel scope attempts, which is how an exchange knows its request
    hooks.onUpstreamStart.tap(NAME, (rc: RequestContext, at: UpstreamAttempt) => {
      if (recording.has(rc.id)) return;
      if (keys && !keys.has(accountOf(rc))) return;
      if (routes && !routes.has(rc.route)) return;
      if (models && !models(at.model)) return;
      recording.set(rc.id, []);
    });
    upstream.observe((exchange) => {
      const list = exchange.attempt && recording.get(exchange.attempt.requestId);
      if (!list) return undefined;
      const c = new ExchangeCapture(exchange, capture);
      list.push(c);
      return c;
    });
    // before the last byte (usage and cost are final there): the line is queued, and its write
    // issued, before the client can see the answer whole, so a crash right after loses nothing it saw
    const settle = (rc: RequestContext, ok: boolean): void => {
      const list = recording.get(rc.id);
      if (!list) return;
      recording.delete(rc.id);
      let answered: ExchangeCapture | undefined;
      for (const c of list) if (c.status !== undefined && c.status < 400) answered = c;
      const usage = chargedUsage(rc);
      for (const c of list) {
        const at = c.start.attempt!;
        const gw = { request_id: rc.id, route: rc.route, key: accountOf(rc), model: at.model, retry: at.retry };
        const charged = c === answered && usage !== undefined ? { usage: { ...usage }, cost_usd: rc.cost ? Number(rc.cost.total.toPrecision(12)) : null } : {};
        try {
          writer.append(c.toLine(secrets.scrub, { ...gw, ...charged }, c === answered && ok));
        } catch (err) {
          log.error({ err, req: rc.id }, 'could not record an exchange');
        }
      }
    };
    hooks.onResponse.tap(NAME, (rc: RequestContext) => settle(rc, true));
    hooks.onError.tap(NAME, (rc: RequestContext) => settle(rc, false));
    metrics.counter('gw_recorder_entries_total', 'Upstream exchanges written to the cassette', () => writer.written);
    metrics.counter('gw_recorder_dropped_total', 'Upstream exchanges not written (the write queue was full, or the write failed)', () => writer.dropped);
    log.info({ path }, 'recording upstream exchanges');
    return {
      async close() {
        await writer.close();
      },
    };
  },
});
