import type { z } from 'zod';
import { UserError } from '../user-error.ts';

/** A config file problem: names the file, the key path and what was expected. */
export class ConfigError extends UserError {
  file: string;
  path: string;

  constructor(file: string, path: ReadonlyArray<PropertyKey>, message: string) {
    const where = formatPath(path);
    super(`${file}: ${where ? `${where}: ` : ''}${message}`);
    this.name = 'ConfigError';
    this.file = file;
    this.path = where;
  }

  /**
   * One ConfigError listing every zod issue, each as `key.path: message`; `hint` may add to an
   * unknown top-level key's message (where its settings belong).
   */
  static fromZod(file: string, prefix: ReadonlyArray<PropertyKey>, error: z.ZodError, hint?: (unknownKeys: string[]) => string): ConfigError {
    const lines = error.issues.map((i) => {
      const p = formatPath([...prefix, ...i.path]);
      return `${p || '(top level)'}: ${describeIssue(i)}${!p && hint && i.code === 'unrecognized_keys' ? hint(i.keys) : ''}`;
    });
    const err = new ConfigError(file, [], lines.length === 1 ? lines[0]! : `\n  ${lines.join('\n  ')}`);
    err.path = formatPath([...prefix, ...(error.issues[0]?.path ?? [])]);
    return err;
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  return issue.message;
}

/** `providers.openai.models[0]` style path; keys that are not identifiers are quoted as TOML does. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      const part = /^[A-Za-z0-9_-]+$/.test(s) ? s : JSON.stringify(s);
      out += out ? `.${part}` : part;
    }
  }
  return out;
}
