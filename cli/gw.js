#!/usr/bin/env node
// Thin launcher: checks the runtime, then loads the TypeScript CLI (Node 24 strips types natively).
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(`gw needs Node.js 24 or newer (this is ${process.version}); run it through npm (npm start, npx gw), which puts the project's Node 24 first on PATH\n`);
  process.exit(1);
}
await import('./main.ts');
