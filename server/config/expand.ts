/**
 * `${VAR}` and `${VAR:-default}` expansion in every string value of a parsed config.
 * Done after TOML parsing so an error can name the key path, and so a `$` in a comment
 * or a value that is not a string is never touched.
 */
import { ConfigError } from '../../lib/config/error.ts';

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands variables in place in all string leaves of `value`.
 * @throws ConfigError naming the key path and the variable when one is unset and has no default.
 */
export function expandEnv(value: unknown, file: string, env: NodeJS.ProcessEnv = process.env, path: string[] = []): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    return value.replace(VAR, (_m, name: string, fallback: string | undefined) => {
      // own variables only: `${constructor}` is unset, not Object's constructor
      const v = Object.hasOwn(env, name) ? env[name] : undefined;
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(file, path, `environment variable ${name} is not set (write \${${name}:-default} to give a default)`);
    });
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = expandEnv(value[i], file, env, [...path, String(i)]);
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const k of Object.keys(obj)) obj[k] = expandEnv(obj[k], file, env, [...path, k]);
    return obj;
  }
  return value;
}
