/**
 * The memory settings `gw serve` runs with, whatever starts it (`npx gw serve`, `npm start`,
 * `node cli/gw.js`, the container). V8 sizes its young generation at process start, so the
 * serving process replaces itself (`process.execve`: same pid, same stdio) with one started
 * with the flags below, once, before the gateway is loaded. A setting the operator gave
 * (in the command line, NODE_OPTIONS or the environment) is kept as given.
 *
 * Why these (measured at c=50 with all five extensions, 45 s; gw CPU per request equal
 * within noise): V8's default semi-space grows to 64 MB (128 MB of young generation) and
 * gw then sat at 330-350 MB; 8 MB semi-spaces hold it near 220-245 MB. glibc gives each
 * libuv thread (LevelDB's work) its own malloc arena: two arenas save another ~20 MB.
 */
import { setFlagsFromString } from 'node:v8';

/** Young generation cap per semi-space, MB. */
const SEMI_SPACE_MB = 8;
const MALLOC_ARENAS = '2';
/** Set in the replaced process's environment: never re-exec twice. */
const MARK = 'GW_HEAP_TUNED';
/** A profiler or debugger on this process would split its output or lose its session across a re-exec. */
const DIAGNOSTIC = /--(cpu-prof|heap-prof|prof\b|inspect)/;

/**
 * Re-executes this process with gw's V8 flags when they are missing; returns only when no
 * re-exec is needed or possible (`process.execve` is POSIX-only) or wanted (profiling,
 * debugging).
 */
export function tuneHeap(): void {
  const env = process.env;
  const given = `${process.execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`;
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (env[MARK] !== '1' && typeof execve === 'function' && !/--max-semi-space-size/.test(given) && !DIAGNOSTIC.test(given)) {
    const flags = [`--max-semi-space-size=${SEMI_SPACE_MB}`];
    execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, ...process.argv.slice(1)], {
      ...env,
      [MARK]: '1',
      MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? MALLOC_ARENAS,
    });
  }
}

/**
 * Lets the young generation grow again under load (V8's default factor); call once serving.
 * cli/gw.js holds it at its initial size while gw loads, so a gateway at rest does not keep
 * the young generation its startup grew (about 14 MB of RSS).
 */
export function servingHeap(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
