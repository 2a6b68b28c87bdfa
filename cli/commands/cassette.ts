/**
 * Cassette tools, on files (no gateway needed):
 *   gw cassette show <path>               a table of the recordings (route, model, tokens, cost, age)
 *   gw cassette redact <path>             the scrubbers run again over every line, in place
 *   gw replay check <cassette> --config   the recordings no request asked for in the last run
 * docs/record-replay.md.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import { keyFormats } from '../../lib/secrets/key-formats.ts';
import { replaceMatches } from '../../lib/secrets/scrubber.ts';
import { apiKeysOf, SecretRedactor } from '../../lib/redact.ts';
import { bodyText, hashOf } from '../../protocols/cassette/canonical.ts';
import type { CassetteEntry } from '../../protocols/cassette/entry.ts';
import { headerLists } from '../../protocols/cassette/headers.ts';
import { type Cassette, type CassetteLine, readCassette } from '../../protocols/cassette/reader.ts';
import { CliError } from '../client/errors.ts';
import { type Column, note, printList } from '../client/output.ts';

/** Reads a cassette for a command: every problem one line. */
async function load(path: string): Promise<Cassette> {
  let c: Cassette;
  try {
    c = await readCassette(path);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  for (const s of c.skipped) note(`${s.file}:${s.line}: skipped, not an entry (${s.reason})`);
  for (const f of c.cut) note(`${f}: its last line was cut short (a crash while recording) and is ignored`);
  return c;
}

/** How long ago `time` was, in the largest whole unit: `40s`, `12m`, `5h`, `3d`. */
export function age(time: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(time)) / 1000));
  if (!Number.isFinite(s)) return '?';
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

function modelOf(e: CassetteEntry): string | undefined {
  const body = e.request.body as { model?: unknown } | null;
  return e.gw?.model ?? (typeof body?.model === 'string' ? body.model : undefined);
}

function tokensOf(e: CassetteEntry): string | undefined {
  const u = e.gw?.usage as { prompt_tokens?: number; completion_tokens?: number } | undefined;
  return u ? `${u.prompt_tokens ?? 0}+${u.completion_tokens ?? 0}` : undefined;
}

function answerOf(e: CassetteEntry): string {
  const r = e.response;
  if (r.status === undefined) return r.error?.kind ?? 'error';
  if (r.events) return `${r.status} (${r.events.length} events${r.complete === false ? ', cut' : ''})`;
  return String(r.status);
}

const COLUMNS: ReadonlyArray<Column<CassetteLine>> = [
  { header: 'LINE', value: (l) => `${l.line}`, right: true },
  { header: 'AGE', value: (l) => age(l.entry.time), right: true },
  { header: 'PROVIDER', value: (l) => l.entry.provider },
  { header: 'ROUTE', value: (l) => l.entry.route },
  { header: 'MODEL', value: (l) => modelOf(l.entry) },
  { header: 'ANSWER', value: (l) => answerOf(l.entry) },
  { header: 'TOKENS', value: (l) => tokensOf(l.entry), right: true },
  { header: 'COST_USD', value: (l) => (typeof l.entry.gw?.cost_usd === 'number' ? l.entry.gw.cost_usd.toFixed(6) : undefined), right: true },
];

/** `gw cassette show <path>` */
export async function show(path: string, o: { json?: boolean }): Promise<void> {
  const c = await load(path);
  const several = c.files.length > 1;
  const columns = several ? [{ header: 'FILE', value: (l: CassetteLine) => l.file }, ...COLUMNS] : COLUMNS;
  printList(
    o.json === true,
    c.entries.map((l) => ({ file: l.file, line: l.line, ...l.entry })),
    columns,
    c.entries,
  );
  let prompt = 0;
  let completion = 0;
  let cost = 0;
  for (const { entry } of c.entries) {
    const u = entry.gw?.usage as { prompt_tokens?: number; completion_tokens?: number } | undefined;
    prompt += u?.prompt_tokens ?? 0;
    completion += u?.completion_tokens ?? 0;
    cost += entry.gw?.cost_usd ?? 0;
  }
  if (!o.json) note(`${c.entries.length} recordings: ${prompt}+${completion} tokens, ${cost.toFixed(6)} USD when recorded`);
}

/** Known secrets of a config file: every provider's api_key (at any depth), the gateway keys, the admin token. */
async function configSecrets(file: string): Promise<string[]> {
  const { loadConfig } = await import('../../server/config/load.ts');
  const config = await loadConfig(file);
  const out: string[] = [];
  for (const section of Object.values(config.providers)) apiKeysOf(section, out);
  for (const k of Object.values(config.keys)) out.push(k.key);
  if (config.admin_token) out.push(config.admin_token);
  return out;
}

/** `gw cassette redact <path> [--config <file>] [--secret <value>…] [--header <name>…]` */
export async function redact(path: string, o: { config?: string; secret?: string[]; header?: string[] }): Promise<void> {
  const secrets = [...(o.secret ?? []), ...(o.config ? await configSecrets(o.config) : [])];
  const known = new SecretRedactor(secrets);
  const scrub = (text: string) => replaceMatches(known.redact(text), keyFormats.find(known.redact(text)));
  let lists: ReturnType<typeof headerLists>;
  try {
    lists = headerLists(o.header ?? []);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const c = await load(path);
  let changed = 0;
  let total = 0;
  for (const file of c.files) {
    const text = await readFile(file, 'utf8');
    const out: string[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') {
        out.push(line);
        continue;
      }
      total++;
      const next = redactLine(line, scrub, lists);
      if (next !== line) changed++;
      out.push(next);
    }
    // a new file renamed over the old: a reader never sees half of it
    const tmp = `${file}.redact-${process.pid}`;
    await writeFile(tmp, out.join('\n'));
    await rename(tmp, file);
  }
  note(`${changed} of ${total} lines changed in ${c.files.length} file${c.files.length === 1 ? '' : 's'}`);
}

/** One line scrubbed: an entry also loses headers off the allow-list and gets its body's hash again; any other line is scrubbed as text. */
function redactLine(line: string, scrub: (text: string) => string, lists: ReturnType<typeof headerLists>): string {
  const scrubbed = scrub(line);
  let entry: CassetteEntry;
  try {
    entry = JSON.parse(scrubbed) as CassetteEntry;
  } catch {
    return scrubbed;
  }
  if (typeof entry !== 'object' || entry === null || !entry.request || !entry.response) return scrubbed;
  entry.request.headers = lists.request.keep(entry.request.headers ?? {});
  if (entry.response.headers) entry.response.headers = lists.response.keep(entry.response.headers);
  entry.request.hash = hashOf(bodyText(entry.request.body));
  const next = JSON.stringify(entry);
  // unchanged content keeps its bytes (key order, number spelling)
  return JSON.stringify(JSON.parse(line)) === next ? line : next;
}

/** `gw replay check <cassette> --config <file>` */
export async function check(cassette: string, o: { config: string; json?: boolean }): Promise<void> {
  const [{ loadConfig }, { openStore }, { createLogger }] = await Promise.all([
    import('../../server/config/load.ts'),
    import('../../server/open-store.ts'),
    import('../../server/log.ts'),
  ]);
  const config = await loadConfig(o.config);
  const target = resolve(cassette);
  const within = (a: string, b: string) => a === b || a.startsWith(b.endsWith(sep) ? b : `${b}${sep}`);
  const replays = Object.entries(config.providers).filter(([, s]) => {
    if (s.kind !== 'replay' || typeof s.cassette !== 'string') return false;
    const own = isAbsolute(s.cassette) ? s.cassette : resolve(config.dir, s.cassette);
    return within(target, own) || within(own, target);
  });
  if (replays.length === 0) throw new CliError(`no provider of ${o.config} replays ${cassette} (kind = "replay" with this cassette)`);
  const c = await load(cassette);
  const { store } = await openStore(config, createLogger('error'));
  const asked = new Set<string>();
  const ran: string[] = [];
  try {
    for (const [name] of replays) {
      const used = await store.namespace(`provider:${name}`).get('used');
      if (used === undefined) continue;
      ran.push(name);
      for (const id of JSON.parse(used) as string[]) asked.add(id);
    }
  } finally {
    await store.close();
  }
  if (ran.length === 0)
    throw new CliError(
      `no run of ${replays.map(([n]) => n).join(', ')} is in the store of ${o.config}: run gw with it first (the ledger is written as it serves, and at shutdown)`,
    );
  const unused = c.entries.filter((l) => !asked.has(l.entry.id));
  printList(
    o.json === true,
    unused.map((l) => ({ file: l.file, line: l.line, ...l.entry })),
    [{ header: 'FILE', value: (l: CassetteLine) => l.file }, ...COLUMNS],
    unused,
  );
  if (!o.json) note(`${unused.length} of ${c.entries.length} recordings were not asked for in the last run of ${ran.join(', ')}`);
  if (unused.length > 0) process.exitCode = 1;
}
