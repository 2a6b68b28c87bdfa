/**
 * Running Gemini CLI (`@google/gemini-cli`, a devDependency) headless and offline against a
 * local Gemini-API server (gw, or a mock): `gemini -p "<prompt>"` in a throwaway HOME and
 * workspace, bounded in time.
 *
 * The set-up is the README's recipe (README.md "Point a coding agent at gw", read from the
 * file: a recipe that stops working fails the tests): its `settings.json` and its exported
 * variables with the run's address and key, plus settings that keep the run offline.
 *
 * What the CLI (0.61) does with this set-up, as observed with strace and a recording mock:
 * - it speaks only to `GOOGLE_GEMINI_BASE_URL`: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`
 *   per turn, the key in `x-goog-api-key`, `user-agent: GeminiCLI-tui/0.61.0/<model> …`,
 *   `x-goog-api-client: google-genai-sdk/1.30.0 gl-node/v24.…`; no countTokens, no models list;
 * - without `GEMINI_CLI_TRUST_WORKSPACE=true` a headless run exits 55 at once ("not running
 *   in a trusted directory"); without `security.auth.selectedType` it exits 41;
 * - `-m <model>` pins the model: without it the "auto" router first calls
 *   `:generateContent` on a flash-lite model and expects a JSON verdict
 *   (`complexity_reasoning`, `complexity_score`);
 * - `privacy.usageStatisticsEnabled: false` stops its usage statistics (otherwise it connects to
 *   play.googleapis.com); telemetry is off by default and kept off; the update check runs only in
 *   the interactive UI (disabled anyway); IDE integration is off unless `ide.enabled`;
 * - `general.maxAttempts: 1` stops its retries (10 attempts, 5 s apart, by default) so a failing
 *   server ends the run at once;
 * - read-only tools (`read_file`, `list_directory`, `glob`, …) run without approval in `-p` mode;
 *   the next request carries `functionCall {id, name, args}` (with
 *   `thoughtSignature: "skip_thought_signature_validator"` when the server sent none) and
 *   `functionResponse {id, name, response: {output}}`. Tools that write or run commands need
 *   `--yolo` (or `--approval-mode yolo`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeBlock, readmeExports } from './readme.ts';
import { type BoundedRun, runBounded } from './run-bounded.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GEMINI_BIN = join(ROOT, 'node_modules/@google/gemini-cli/bundle/gemini.js');
/** The Node 24 of the `node` devDependency; Gemini CLI needs Node ≥ 22. */
const NODE_24 = join(ROOT, 'node_modules/node/bin/node');

export interface GeminiCliOptions {
  /** Gemini-API origin, e.g. `http://127.0.0.1:8080` (the CLI appends `/v1beta/models/…`). */
  baseUrl: string;
  /** Sent as `x-goog-api-key` (`GEMINI_API_KEY`). */
  apiKey: string;
  prompt: string;
  /** Pinned with `-m` (default `gemini-2.5-flash`), so no routing call is made. */
  model?: string;
  /** Files to create in the workspace (relative path → content) before the run. */
  files?: Record<string, string>;
  /** Merged over the default settings (top-level keys replace). */
  settings?: Record<string, unknown>;
  /** More CLI arguments, e.g. `['--yolo']` or `['--output-format', 'json']`. */
  args?: string[];
  /** More environment variables. */
  env?: Record<string, string>;
  /** Killed (SIGKILL) after this long; default 60 s. */
  timeoutMs?: number;
}

/** The run's exit code, output and whether it was killed at its time limit. */
export type GeminiCliResult = BoundedRun;

/** How the README's two Gemini CLI blocks begin. */
const SETTINGS_RECIPE = '{\n  "security"';
const SHELL_RECIPE = 'export GOOGLE_GEMINI_BASE_URL=';

/** The settings every run gets: the README's (API-key auth), then nothing phoning home and no retries. */
export function defaultGeminiSettings(): Record<string, unknown> {
  return {
    ...(JSON.parse(readmeBlock(SETTINGS_RECIPE)) as Record<string, unknown>),
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { maxAttempts: 1, enableAutoUpdate: false, enableAutoUpdateNotification: false },
    ide: { enabled: false },
  };
}

/**
 * The variables the README exports, its address and key placeholder replaced by `baseUrl`
 * and `apiKey`.
 * @throws when the README's block no longer runs `gemini -m <model> -p` as the runs here do.
 */
export function readmeGeminiEnv(baseUrl: string, apiKey: string): Record<string, string> {
  const block = readmeBlock(SHELL_RECIPE);
  if (!/^gemini -m <model> -p /m.test(block)) throw new Error("README.md's Gemini CLI recipe: expected a `gemini -m <model> -p …` line");
  return readmeExports(block, baseUrl, apiKey);
}

/**
 * Runs `gemini -m <model> -p <prompt>` with a temporary HOME (holding `.gemini/settings.json`)
 * and a temporary workspace, both removed afterwards. The environment is built from scratch
 * (no inherited GEMINI_*, GOOGLE_*, proxy or CI variables): PATH with Node 24 first, HOME,
 * the README's variables (`GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`,
 * `GEMINI_CLI_TRUST_WORKSPACE`), `NO_COLOR=1`, `TERM=dumb`, and `TMPDIR` inside the throwaway
 * directory (the CLI writes error reports there).
 * Never rejects for the CLI's own failures: they are in `code` and `stderr`.
 */
export async function runGeminiCli(opts: GeminiCliOptions): Promise<GeminiCliResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-gemini-cli-'));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  try {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(work);
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ ...defaultGeminiSettings(), ...opts.settings }, null, 2));
    for (const [rel, content] of Object.entries(opts.files ?? {})) {
      mkdirSync(dirname(join(work, rel)), { recursive: true });
      writeFileSync(join(work, rel), content);
    }
    const node = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : NODE_24;
    const env: Record<string, string> = {
      PATH: `${dirname(node)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      ...readmeGeminiEnv(opts.baseUrl, opts.apiKey),
      NO_COLOR: '1',
      TERM: 'dumb',
      // the CLI writes error reports to os.tmpdir(); keep them in the throwaway directory
      TMPDIR: dir,
      ...opts.env,
    };
    const args = [GEMINI_BIN, '-m', opts.model ?? 'gemini-2.5-flash', ...(opts.args ?? []), '-p', opts.prompt];
    return await runBounded(node, args, work, env, opts.timeoutMs ?? 60_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
