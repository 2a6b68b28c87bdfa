#!/usr/bin/env node
// Thin launcher: checks the runtime, then runs the compiled CLI (dist/, built by
// `npm run build`, which `npm ci` and `npm start` run) or, with GW_FROM_SOURCE=1 or no
// build, the TypeScript sources (Node 24 strips types; the tests run that way).
import { existsSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import satisfies from 'semver/functions/satisfies.js';

// the young generation stays at its initial size while gw loads: otherwise loading grows it
// to its cap and a gateway at rest keeps that memory; `gw serve` lets it grow again once
// listening (cli/heap.ts)
setFlagsFromString('--semi-space-growth-factor=1');

// package.json's engines is the one statement of what gw runs on (the floor is undici's)
const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
if (!satisfies(process.version, engines.node)) {
  process.stderr.write(
    `gw needs Node.js ${engines.node}, 24 recommended (this is ${process.version}); run it through npm (npm start, npx gw), which puts the project's Node 24 first on PATH\n`,
  );
  process.exit(1);
}
const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (process.env.GW_FROM_SOURCE !== '1' && existsSync(compiled)) await import(compiled.href);
else {
  // built-in plugins import the SDK by the package's own name (`gw/plugin`): from the sources
  // it must resolve to the sources too (the `gw-source` condition of package.json `exports`,
  // as in the tests and tsc), never to dist/, which may be stale or absent and would be a
  // second copy of every core module (and of its error classes)
  const { registerHooks } = await import('node:module');
  registerHooks({
    resolve: (specifier, context, next) =>
      next(specifier, specifier.startsWith('gw/') ? { ...context, conditions: [...context.conditions, 'gw-source'] } : context),
  });
  await import('./main.ts');
}
