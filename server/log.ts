/**
 * The process logger (pino). Secrets never reach it: request bodies are logged only at
 * trace and headers never; redaction below is the safety net for fields named like secrets.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { LEVELS } from '../lib/log-levels.ts';

/** Level from `-v` count (1 info, 2 debug, 3+ trace), else `LOG_LEVEL`, else info. */
export function levelFrom(verbosity: number, env: NodeJS.ProcessEnv = process.env): LevelWithSilent {
  if (verbosity >= 3) return 'trace';
  if (verbosity === 2) return 'debug';
  if (verbosity === 1) return 'info';
  const l = env.LOG_LEVEL?.toLowerCase();
  if (l === 'silent' || (LEVELS as readonly string[]).includes(l ?? '')) return l as LevelWithSilent;
  return 'info';
}

/**
 * Field paths pino censors in every line (a safety net: secrets are not logged to begin
 * with). The headers formats read keys from are added by `censoringKeyHeaders`.
 */
export const REDACT_PATHS = ['api_key', '*.api_key', 'key', '*.key', 'admin_token', 'authorization', '*.authorization', 'headers.authorization'];

/** A JSON-lines logger to stdout (or `dest`). */
export function createLogger(level: LevelWithSilent, dest?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '***' },
    },
    // stdout through an asynchronous SonicBoom: a line is a buffered write, not a blocking
    // syscall per request; pino flushes it synchronously on exit
    (dest as pino.DestinationStream | undefined) ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * `log`, also censoring `headers["<name>"]` for each header a gateway key may come in
 * (x-api-key, x-goog-api-key, a third-party format's): the gateway's logger, and every
 * plugin's, are children of it.
 */
export function censoringKeyHeaders(log: Logger, headers: readonly string[]): Logger {
  if (headers.length === 0) return log;
  return log.child({}, { redact: { paths: [...REDACT_PATHS, ...headers.map((name) => `headers["${name}"]`)], censor: '***' } });
}
