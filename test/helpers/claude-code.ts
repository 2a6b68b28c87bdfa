/**
 * Running Claude Code (`@anthropic-ai/claude-code`, a devDependency) headless and offline
 * against a local Messages server (gw, or a mock): `claude -p "<prompt>"` in a throwaway HOME
 * and workspace, bounded in time. Its native binary comes from the platform package npm
 * installs beside it (`@anthropic-ai/claude-code-linux-x64`…); the wrapper's postinstall only
 * copies it.
 *
 * The set-up is the README's recipe (README.md "Point a coding agent at gw", read from the
 * file: a recipe that stops working fails the tests): its exported variables with the run's
 * address and key, plus one that keeps the run offline.
 *
 * What the CLI (2.1.332) does with this set-up, as observed with strace and a recording mock:
 * - it connects only to `ANTHROPIC_BASE_URL`: one `POST /v1/messages?beta=true` per turn,
 *   `stream: true`, the key as `authorization: Bearer` (`ANTHROPIC_AUTH_TOKEN`), its system
 *   prompt as text blocks and its tools (Read, Bash, Edit, Write…); no count_tokens and no
 *   model list in `-p` mode;
 * - `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` keeps it off every other host (telemetry,
 *   error reports, the update check);
 * - without `--model` it asks for its default model (`claude-opus-5-5`), which the README's
 *   alias patterns route;
 * - read-only tools (Read, Glob, Grep) run without approval in `-p` mode; the next request
 *   carries the `tool_use` block and a `tool_result` whose text is the file with line numbers;
 * - it retries a 401 and a 5xx answer for minutes (with backoff) unless the answer carries
 *   `x-should-retry: false`.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeBlock, readmeExports } from './readme.ts';
import { type BoundedRun, runBounded } from './run-bounded.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLAUDE_BIN = join(ROOT, `node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`);

export interface ClaudeCodeOptions {
  /** Messages origin, e.g. `http://127.0.0.1:8080` (the CLI appends `/v1/messages`). */
  baseUrl: string;
  /** Sent as `authorization: Bearer` (`ANTHROPIC_AUTH_TOKEN`). */
  apiKey: string;
  prompt: string;
  /** `--model`; default: the CLI's own default model. */
  model?: string;
  /** Files to create in the workspace (relative path → content) before the run. */
  files?: Record<string, string>;
  /** More CLI arguments, e.g. `['--output-format', 'json']`. */
  args?: string[];
  /** Killed (SIGKILL) after this long; default 60 s. */
  timeoutMs?: number;
  /** `claude` commands run first in the same HOME and workspace (e.g. `['mcp', 'add', …]`), each to its end. */
  before?: string[][];
  /** More environment variables. */
  env?: Record<string, string>;
}

export interface ClaudeCodeResult extends BoundedRun {
  /** The workspace the run had (removed by now), as the CLI saw it. */
  workspace: string;
  /** What each of `before` printed, in order. */
  before: BoundedRun[];
}

/** How the README's Claude Code block begins. */
const SHELL_RECIPE = 'export ANTHROPIC_BASE_URL=';

/**
 * The variables the README exports, its address and key placeholder replaced by `baseUrl`
 * and `apiKey`.
 * @throws when the README's block no longer ends by running `claude`.
 */
export function readmeClaudeEnv(baseUrl: string, apiKey: string): Record<string, string> {
  const block = readmeBlock(SHELL_RECIPE);
  if (!/^claude$/m.test(block)) throw new Error("README.md's Claude Code recipe: expected a `claude` line after the exports");
  return readmeExports(block, baseUrl, apiKey);
}

/**
 * Runs `claude -p <prompt>` with a temporary HOME and workspace, both removed afterwards.
 * The environment is built from scratch (no inherited ANTHROPIC_*, CLAUDE_*, proxy or CI
 * variables): a plain PATH, HOME, the README's variables, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`,
 * `NO_COLOR=1`, `TERM=dumb` and `TMPDIR` inside the throwaway directory.
 * Never rejects for the CLI's own failures: they are in `code` and `stderr`.
 * @throws when the platform's binary is not installed (npm skipped optional dependencies).
 */
export async function runClaudeCode(opts: ClaudeCodeOptions): Promise<ClaudeCodeResult> {
  if (!existsSync(CLAUDE_BIN)) throw new Error(`Claude Code's native binary is missing (${CLAUDE_BIN}): run npm ci without --omit=optional`);
  // the CLI reports the real path of its working directory
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'gw-claude-code-')));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  try {
    mkdirSync(home);
    mkdirSync(work);
    for (const [rel, content] of Object.entries(opts.files ?? {})) {
      mkdirSync(dirname(join(work, rel)), { recursive: true });
      writeFileSync(join(work, rel), content);
    }
    const env: Record<string, string> = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      ...readmeClaudeEnv(opts.baseUrl, opts.apiKey),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      NO_COLOR: '1',
      TERM: 'dumb',
      TMPDIR: dir,
      ...opts.env,
    };
    const before: BoundedRun[] = [];
    for (const step of opts.before ?? []) before.push(await runBounded(CLAUDE_BIN, step, work, env, opts.timeoutMs ?? 60_000, true));
    const args = ['-p', opts.prompt, ...(opts.model ? ['--model', opts.model] : []), ...(opts.args ?? [])];
    return { ...(await runBounded(CLAUDE_BIN, args, work, env, opts.timeoutMs ?? 60_000, true)), workspace: work, before };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
