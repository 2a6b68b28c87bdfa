/**
 * The TOML examples of the documentation, loaded the way gw loads a config file, so an
 * example that gw would refuse fails a test instead of misleading a reader.
 *
 * An example is a fenced block tagged `toml`. It is loaded with the real loader (TOML
 * parsing, `${VAR}` expansion, the config schema) and then every section a plugin owns is
 * checked by that plugin: each provider is built by the core's `buildProvider` (its kind's
 * schema, the routing and client settings the core splits off) on a connection pool that
 * refuses the network, each `[extensions.<name>]` by its extension's schema, each format
 * section (`[responses]`, `[formats.<name>]`) by its format's. A fragment (one or a few sections) is a config
 * of its own: every top-level setting has a default, so the empty config is the minimal one
 * it is wrapped in. `${NAME}` variables are given placeholder values.
 *
 * A block that is TOML but not a gw config (another tool's file) is marked on the line
 * before its fence: `<!-- not-validated: <reason> -->`; it is counted, not loaded. An
 * untagged block that reads as TOML is reported: tagged, it would be checked.
 */
import pino from 'pino';
import { parse } from 'smol-toml';
import { MockAgent } from 'undici';
import { parseConfig } from '../../server/config/load.ts';
import { buildProvider } from '../../server/build-provider.ts';
import { loadPlugin } from '../../core/plugins/load.ts';
import { loadFormats } from '../../server/set-up.ts';
import type { Store } from '../../lib/store/types.ts';
import { fencedBlocks } from './readme.ts';

/** A TOML example: where it is (`file:line` of its opening fence) and its text; `skipped` is the reason it is marked not to be loaded. */
export interface TomlExample {
  where: string;
  text: string;
  skipped?: string;
}

const MARK = /^<!-- not-validated: (.*\S.*) -->$/;
const TABLE = /^\[{1,2}[^\]]+\]{1,2}\s*(#.*)?$/;
const PAIR = /^[A-Za-z0-9_"'.-]+\s*=\s*\S/;
const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The TOML examples of one Markdown file and what is wrong with how they are marked: a marker
 * before a block that is not TOML, an untagged block that reads as TOML.
 */
export function tomlExamples(file: string, markdown: string): { examples: TomlExample[]; problems: string[] } {
  const examples: TomlExample[] = [];
  const problems: string[] = [];
  for (const b of fencedBlocks(markdown)) {
    const where = `${file}:${b.line}`;
    const mark = MARK.exec(b.before.trim())?.[1];
    if (b.lang === 'toml') examples.push(mark === undefined ? { where, text: b.text } : { where, text: b.text, skipped: mark });
    else if (mark !== undefined) problems.push(`${where}: a not-validated marker before a block tagged '${b.lang}', not toml`);
    else if (b.lang === '' && readsAsToml(b.text)) problems.push(`${where}: an untagged block that reads as TOML: tag it \`\`\`toml so it is checked`);
  }
  return { examples, problems };
}

/** True when the first line that is not a comment is a table header or a `key = value` pair and the whole text parses as TOML. */
function readsAsToml(text: string): boolean {
  const first = text.split('\n').find((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  if (first === undefined || !(TABLE.test(first.trim()) || PAIR.test(first.trim()))) return false;
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A store for building providers: nothing in a provider's setup may use it here. */
const noStore: Store = new Proxy({} as Store, {
  get: (_t, prop) => {
    if (prop === 'namespace') return () => noStore;
    if (prop === 'then') return undefined;
    return () => {
      throw new Error(`the docs check has no store (${String(prop)})`);
    };
  },
});

/**
 * Loads one example as gw would load it as a config file.
 * @returns what gw says is wrong with it (`where: key path: what was expected`); empty when gw accepts it.
 */
export async function checkExample(ex: TomlExample): Promise<string[]> {
  const env: NodeJS.ProcessEnv = {};
  for (const [, name] of ex.text.matchAll(VAR)) env[name!] = `docs-example-${name!.toLowerCase()}`;
  const problems: string[] = [];
  const report = (err: unknown) => problems.push(err instanceof Error ? err.message : String(err));
  let cfg: ReturnType<typeof parseConfig>;
  try {
    cfg = parseConfig(ex.text, ex.where, '/docs-example/gateway.toml', env);
  } catch (err) {
    report(err);
    return problems;
  }
  // discovery (a provider listing no models) must fail at once, never reach a network
  const agent = new MockAgent();
  agent.disableNetConnect();
  const deps = { store: noStore, log: pino({ level: 'silent' }), dispatcher: agent };
  try {
    for (const [name, section] of Object.entries(cfg.providers)) {
      try {
        const built = await buildProvider(name, section, ex.where, deps);
        await built.provider.close?.();
      } catch (err) {
        report(err);
      }
    }
    for (const [name, section] of Object.entries(cfg.extensions))
      await loadPlugin({ type: 'extension', name, file: ex.where, path: ['extensions', name], settings: section }).catch(report);
    // the built-in formats' sections ([responses]) and [formats.<name>], each by its format's schema
    await loadFormats(cfg, ex.where).catch(report);
  } finally {
    await agent.close();
  }
  return problems;
}
