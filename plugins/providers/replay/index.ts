/**
 * The `replay` kind: a provider that answers as a recorded upstream did, from a cassette
 * (gw/plugin/cassette). It is a provider of the recorded kind — the same plugin, the same
 * translations and stream readers — whose upstream transport is the cassette
 * (`buildProvider` with a transport of its own), so routing, translations, keys, budgets,
 * usage, the request log and otel run as they did when recording. A request with no recording
 * is a 502 `replay_miss` naming the nearest recording and the first differing JSON path.
 * `record_mode = "once" | "new"` sends what is missing to the real upstream
 * (`[providers.<name>.upstream]`) and appends it. docs/record-replay.md.
 */
import {
  currentAttempt,
  defineProvider,
  type ExchangeSink,
  type ExchangeStart,
  type Provider,
  type UpstreamIdentity,
  upstreamSettings,
  UserError,
} from 'gw/plugin';
import { type CassetteLine, CassetteWriter, DEFAULT_MAX_BYTES, ExchangeCapture, headerLists, Matcher, readCassette, ReplayTransport } from 'gw/plugin/cassette';
import { replaySchema } from './config.ts';
import { Ledger } from './ledger.ts';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

export default defineProvider({
  name: 'replay',
  configSchema: replaySchema,
  routing: ['max_retries', 'weight'],
  gw: '^0.2.0',
  async setup({ name, config, log, store, buildProvider, resolvePath, secrets }): Promise<Provider> {
    const path = resolvePath(config.cassette);
    const recording = config.record_mode !== 'none';
    // expected failures are one line naming the setting (a UserError), never a stack
    const fail = (setting: string, message: string) => new UserError(`providers.${name}.${setting}: ${message}`);
    const cassette = await readCassette(path, { missingOk: recording }).catch((err: Error) => {
      throw fail('cassette', err.message);
    });
    for (const s of cassette.skipped.slice(0, 20))
      log.warn({ provider: name, file: s.file, line: s.line, reason: s.reason }, 'cassette line skipped: not an entry');
    const lines = ownLines(cassette.entries, config.provider ?? name, config.provider !== undefined);
    if (lines.length === 0 && !recording) {
      const names = [...new Set(cassette.entries.map((l) => l.entry.provider))];
      throw fail(
        'cassette',
        `${config.cassette} holds no recording of provider '${config.provider ?? name}'${names.length ? ` (it has: ${names.join(', ')}; set provider = "<one of them>")` : ''}`,
      );
    }
    const kinds = new Set(lines.map((l) => l.entry.kind));
    if (kinds.size > 1)
      throw fail('cassette', `${config.cassette} records provider '${config.provider ?? name}' as several kinds (${[...kinds].join(', ')}): split it`);
    const kind = (config.upstream?.kind as string | undefined) ?? [...kinds][0]!;
    if (kind === 'replay') throw fail('upstream.kind', 'a replay provider replays a recorded kind, not another replay');
    const upstreamModels = Array.isArray(config.upstream?.models) ? (config.upstream.models as string[]) : [];
    const models = config.models ?? (lines.length > 0 ? recordedModels(lines) : upstreamModels);
    if (models.length === 0) throw fail('models', `${config.cassette} names no model for this provider yet: give models = [...]`);

    // the recorded kind's section: the real upstream's, else the recorded settings (origins hidden, no key)
    const section: Record<string, unknown> = config.upstream ? { ...config.upstream } : { ...lines[0]!.entry.upstream, api_key: 'replay-has-no-key' };
    Object.assign(section, config.settings, { kind, models });
    delete section.pricing;

    const matcher = new Matcher(lines, { mode: config.match, ignore: config.ignore });
    const ledger = new Ledger(store, matcher.used);
    const upstreamKey = typeof config.upstream?.api_key === 'string' ? config.upstream.api_key : undefined;
    // the upstream's key is in this provider's section, which the gateway redacts too; said here as well, for the first requests
    const scrub = (text: string) => secrets.scrub(upstreamKey && upstreamKey.length >= 8 ? text.replaceAll(upstreamKey, '[redacted]') : text);
    // VCR's `once`: record while the cassette holds nothing of this provider, then replay only
    const records = config.record_mode === 'new' || (config.record_mode === 'once' && lines.length === 0);
    const writer = records
      ? await CassetteWriter.open(await appendTarget(path, name)).catch((err: Error) => {
          throw fail('cassette', `cannot record to ${config.cassette}: ${err.message}`);
        })
      : undefined;
    const identity: UpstreamIdentity = { provider: config.provider ?? name, kind, settings: upstreamSettings(section) };
    const capture = { headers: headerLists(), maxBytes: DEFAULT_MAX_BYTES };

    const inner = await buildProvider(section, {
      transport: (pool) =>
        new ReplayTransport({
          cassette: config.cassette,
          provider: name,
          matcher,
          scrub,
          speed: config.speed,
          served: () => ledger.touch(),
          record: writer && {
            pool,
            upstream: identity,
            everything: config.record_mode === 'once',
            observer: (ex) => appending(ex, capture, (c) => writer.append(c.toLine(scrub, gwOf(c.start)))),
          },
        }),
    });
    log.info(
      { provider: name, cassette: config.cassette, kind, recordings: lines.length, models: models.length, record_mode: config.record_mode },
      'replaying a cassette',
    );
    return {
      name,
      kind: inner.kind,
      models,
      chat: (req, call) => inner.chat(req, call),
      ...(inner.embeddings && { embeddings: inner.embeddings.bind(inner) }),
      ...(inner.native && { native: inner.native }),
      listModels: async () => models,
      async close() {
        await ledger.flush();
        await writer?.close();
        await inner.close?.();
      },
    };
  },
});

/** The recordings of provider `wanted`; with no name given, the cassette's only provider's when it has one. */
function ownLines(all: readonly CassetteLine[], wanted: string, named: boolean): CassetteLine[] {
  const own = all.filter((l) => l.entry.provider === wanted);
  if (own.length > 0 || named) return own;
  const providers = new Set(all.map((l) => l.entry.provider));
  return providers.size === 1 ? [...all] : [];
}

/** The models the recordings asked for, in the order first seen. */
function recordedModels(lines: readonly CassetteLine[]): string[] {
  const out = new Set<string>();
  for (const { entry } of lines) {
    const model = entry.gw?.model ?? (entry.request.body as { model?: unknown } | null)?.model;
    if (typeof model === 'string' && model) out.add(model);
  }
  return [...out];
}

/** Where a record mode appends: the cassette file, or `<name>.jsonl` in a cassette folder. */
async function appendTarget(path: string, name: string): Promise<string> {
  try {
    if ((await stat(path)).isDirectory()) return join(path, `${name}.jsonl`);
  } catch {
    // not there yet: a file to create
  }
  return path;
}

/** A capture of `ex` that calls `done` once the exchange settled. */
function appending(ex: ExchangeStart, settings: ConstructorParameters<typeof ExchangeCapture>[1], done: (c: ExchangeCapture) => void): ExchangeSink {
  const c = new ExchangeCapture(ex, settings);
  return {
    response: (status, headers) => c.response(status, headers),
    data: (chunk) => c.data(chunk),
    end: () => {
      c.end();
      done(c);
    },
    error: (err) => {
      c.error(err);
      done(c);
    },
  };
}

/** What a record mode knows of the gateway request an exchange served (no usage: that is the recorder's). */
function gwOf(ex: ExchangeStart) {
  const at = ex.attempt ?? currentAttempt();
  return at?.requestId ? { request_id: at.requestId, model: at.model, retry: at.retry } : undefined;
}
