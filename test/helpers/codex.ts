/**
 * Running the real Codex CLI (`@openai/codex`, its native binary ships in the npm package)
 * offline against a local Responses server: `codex exec` with a throw-away `CODEX_HOME`.
 *
 * Its `config.toml` is the README's recipe (README.md "Point a coding agent at gw", read from
 * the file: a recipe that stops working fails the tests) with the model and address of the
 * run, plus what keeps the run offline and unattended (found by tracing its connections):
 * - `check_for_update_on_startup = false`, `[analytics] enabled = false`, and the features
 *   `plugins`, `remote_plugin`, `apps`, `api_key_model_discovery` off: with them on, Codex
 *   clones a plugin marketplace from GitHub and resolves chatgpt.com at start;
 * - `request_max_retries = 0`, `stream_max_retries = 0`: a failure ends the run at once
 *   instead of retrying with backoff;
 * - the flags of the README's `codex exec` line (`--skip-git-repo-check`: the working
 *   directory is a fresh temp dir, not a repo, where Codex refuses to run without it),
 *   `--ephemeral` (no session files), `--dangerously-bypass-approvals-and-sandbox` (the
 *   model's shell command runs without an approval prompt and without the seccomp/landlock
 *   sandbox, which containers often lack; the command is the test's own), stdin closed
 *   (else `exec` waits for more prompt on stdin);
 * - a minimal environment (PATH, HOME and CODEX_HOME in the temp dir, the recipe's key
 *   variable): no OPENAI_API_KEY or proxy settings leak in.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { README_ORIGIN, readmeBlock } from './readme.ts';
import { runBounded } from './run-bounded.ts';

/** The npm package's launcher; it execs the platform's native binary. */
const CODEX_JS = createRequire(import.meta.url).resolve('@openai/codex/bin/codex.js');
/** How the README's Codex block begins. */
const RECIPE = '# ~/.codex/config.toml';

export interface CodexRun {
  stdout: string;
  stderr: string;
  /** Exit code, or null when killed. */
  exitCode: number | null;
  timedOut: boolean;
}

export interface CodexOptions {
  /** The Responses base URL, e.g. `http://127.0.0.1:1234/v1` (Codex posts to `{baseURL}/responses`). */
  baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  prompt: string;
  /** Default `test-model`. */
  model?: string;
  /** Kill the run after this long; default 60 s. */
  timeoutMs?: number;
  /** Extra `config.toml` lines, appended; `{{KEY_VAR}}` in them names the variable that holds `apiKey`. */
  extraConfig?: string;
  /**
   * Run only with the README's flags, without `--dangerously-bypass-approvals-and-sandbox`
   * (which also lets Codex run outside a git repository): what a user following the README
   * does, for a turn that runs no command.
   */
  asReadme?: boolean;
}

/** The parts of the README's Codex config a run reads. */
interface Recipe {
  model: string;
  model_provider: string;
  model_providers: Record<string, { base_url: string; env_key: string; [k: string]: unknown }>;
  [k: string]: unknown;
}

/**
 * `config.toml` for a run against `baseURL` (the README's recipe, its model and address
 * replaced, plus the offline settings), and the variable that must hold the key.
 * @throws when the README's recipe no longer has the shape this reads.
 */
export function codexConfig(baseURL: string, model: string, extra = ''): { toml: string; keyVar: string } {
  const cfg = parse(readmeBlock(RECIPE)) as unknown as Recipe;
  const provider = cfg.model_providers?.[cfg.model_provider];
  if (provider?.base_url !== `${README_ORIGIN}/v1` || typeof provider.env_key !== 'string')
    throw new Error(`README.md's Codex recipe: expected [model_providers.${cfg.model_provider}] with base_url = "${README_ORIGIN}/v1" and env_key`);
  cfg.model = model;
  provider.base_url = baseURL;
  provider.request_max_retries = 0;
  provider.stream_max_retries = 0;
  cfg.check_for_update_on_startup = false;
  cfg.analytics = { enabled: false };
  cfg.features = { plugins: false, remote_plugin: false, apps: false, api_key_model_discovery: false };
  return { toml: `${stringify(cfg)}\n${extra}`, keyVar: provider.env_key };
}

/**
 * The flags of the README's `codex exec` line, in the shell block that exports the recipe's
 * key variable (a recipe that no longer works outside a git repository fails the tests).
 * @throws when the README has no such line.
 */
export function readmeExecFlags(keyVar: string): string[] {
  const line = readmeBlock(`export ${keyVar}=`)
    .split('\n')
    .find((l) => l.startsWith('codex exec '));
  if (!line) throw new Error(`README.md's Codex recipe: expected a "codex exec" line after "export ${keyVar}="`);
  return line
    .split('#')[0]!
    .trim()
    .split(/\s+/)
    .filter((arg) => arg.startsWith('--'));
}

/**
 * Runs `codex exec <prompt>` once and resolves when it exits (or is killed at `timeoutMs`).
 * stdout holds the final agent message; stderr the transcript (commands run, errors).
 */
export async function runCodex(opts: CodexOptions): Promise<CodexRun> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-codex-'));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  await mkdir(home);
  await mkdir(work);
  const config = codexConfig(opts.baseURL, opts.model ?? 'test-model', opts.extraConfig);
  await writeFile(join(home, 'config.toml'), config.toml.replaceAll('{{KEY_VAR}}', config.keyVar));
  const bypass = opts.asReadme ? [] : ['--dangerously-bypass-approvals-and-sandbox'];
  const args = [CODEX_JS, 'exec', ...readmeExecFlags(config.keyVar), '--ephemeral', ...bypass, '--color', 'never', opts.prompt];
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, CODEX_HOME: home, [config.keyVar]: opts.apiKey };
  try {
    // its own process group, so a timeout also stops the shell commands it started
    const r = await runBounded(process.execPath, args, work, env, opts.timeoutMs ?? 60_000, true);
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.code, timedOut: r.timedOut };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
