/**
 * Running the real Codex CLI (`@openai/codex`, its native binary ships in the npm package)
 * offline against a local Responses server: `codex exec` with a throw-away `CODEX_HOME`.
 *
 * What keeps it offline and unattended (found by tracing its connections):
 * - a custom model provider (`wire_api = "responses"`, `base_url` = the local server,
 *   `env_key` naming the variable that holds the key) so nothing goes to OpenAI;
 * - `check_for_update_on_startup = false`, `[analytics] enabled = false`, and the features
 *   `plugins`, `remote_plugin`, `apps`, `api_key_model_discovery` off: with them on, Codex
 *   clones a plugin marketplace from GitHub and resolves chatgpt.com at start;
 * - `request_max_retries = 0`, `stream_max_retries = 0`: a failure ends the run at once
 *   instead of retrying with backoff;
 * - `--skip-git-repo-check` (the working directory is a fresh temp dir, not a repo),
 *   `--ephemeral` (no session files), `--dangerously-bypass-approvals-and-sandbox` (the
 *   model's shell command runs without an approval prompt and without the seccomp/landlock
 *   sandbox, which containers often lack; the command is the test's own), stdin closed
 *   (else `exec` waits for more prompt on stdin);
 * - a minimal environment (PATH, HOME and CODEX_HOME in the temp dir, the key variable):
 *   no OPENAI_API_KEY or proxy settings leak in.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The npm package's launcher; it execs the platform's native binary. */
const CODEX_JS = createRequire(import.meta.url).resolve('@openai/codex/bin/codex.js');
const KEY_VAR = 'GW_TEST_API_KEY';

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
  /** Extra `config.toml` lines, appended. */
  extraConfig?: string;
}

/** `config.toml` for a run against `baseURL`. */
export function codexConfig(baseURL: string, model: string, extra = ''): string {
  return `model = "${model}"
model_provider = "gw"
check_for_update_on_startup = false

[model_providers.gw]
name = "gw"
base_url = "${baseURL}"
wire_api = "responses"
env_key = "${KEY_VAR}"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
api_key_model_discovery = false
${extra}`;
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
  await writeFile(join(home, 'config.toml'), codexConfig(opts.baseURL, opts.model ?? 'test-model', opts.extraConfig));
  const args = [CODEX_JS, 'exec', '--skip-git-repo-check', '--ephemeral', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', opts.prompt];
  const child = spawn(process.execPath, args, {
    cwd: work,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, CODEX_HOME: home, [KEY_VAR]: opts.apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
    // its own process group, so a timeout also stops the shell commands it started
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, opts.timeoutMs ?? 60_000);
  try {
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve(code));
    });
    return { stdout, stderr, exitCode, timedOut };
  } finally {
    clearTimeout(timer);
    await rm(dir, { recursive: true, force: true });
  }
}
