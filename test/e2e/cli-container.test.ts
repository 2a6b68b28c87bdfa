/**
 * The container form (spec "Process and configuration"): no Docker engine runs here, so this
 * reads the Dockerfile and runs the same command line as a subprocess, with /data mapped
 * to a temp dir and the bind moved to 127.0.0.1:0 (tests listen on loopback only).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { spawnGateway } from '../helpers/gateway.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, '');

/** The JSON-array form of an instruction (`CMD [...]`, `HEALTHCHECK … CMD [...]`). */
function execForm(instruction: RegExp): string[] {
  const m = instruction.exec(DOCKERFILE);
  if (!m) throw new Error(`no ${instruction} in the Dockerfile`);
  return JSON.parse(m[1]!) as string[];
}

const CMD = execForm(/^CMD (\[.*\])$/m);
const HEALTHCHECK = execForm(/^HEALTHCHECK .*?CMD (\[.*\])$/m);

function run(argv: string[], cwd: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv.slice(1), { cwd, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

test('the image is Node 24 slim, runs compiled JavaScript as a non-root user, keeps /data as a volume and serves on 0.0.0.0:5632', (t) => {
  t.regex(DOCKERFILE, /^FROM node:24-slim$/m);
  t.regex(DOCKERFILE, /^RUN npx tsc -p tsconfig\.build\.json$/m);
  t.regex(DOCKERFILE, /^COPY --from=build \/app\/dist \.\/dist$/m);
  // the build stage has every folder the build compiles (protocols/ was once missing)
  const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  for (const dir of build.include) t.regex(DOCKERFILE, new RegExp(`^COPY ${dir} \\./${dir}$`, 'm'), `the build stage copies ${dir}/`);
  t.regex(DOCKERFILE, /^USER node$/m);
  t.regex(DOCKERFILE, /^VOLUME \["\/data"\]$/m);
  t.regex(DOCKERFILE, /^EXPOSE 5632$/m);
  t.deepEqual(CMD, ['node', 'cli/gw.js', 'serve', '--config', '/data/gateway.toml', '--bind', '0.0.0.0:5632']);
  t.true(HEALTHCHECK.join(' ').includes('http://127.0.0.1:5632/health'));
  const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const p of ['node_modules', 'data', '.git']) t.true(ignore.includes(p), p);
});

test("the image's command line runs the compiled gateway when dist/ exists (as the image has it)", async (t) => {
  t.true(existsSync(join(ROOT, 'dist/cli/main.js')), 'npm ci builds dist/ (the prepare script)');
  const volume = await mkdtemp(join(tmpdir(), 'gw-container-'));
  t.teardown(() => rm(volume, { recursive: true, force: true }));
  const args = CMD.slice(2).map((a) => a.replace(/^\/data(?=\/|$)/, volume).replace('0.0.0.0:5632', '127.0.0.1:0'));
  const gw = await spawnGateway(args, { cwd: ROOT, env: { GW_FROM_SOURCE: '0' } });
  t.teardown(() => {
    gw.child.kill('SIGKILL');
  });
  const health = await fetch(`${gw.url}/health`);
  t.is(health.status, 200);
  // the compiled code loaded the compiled plugins and formats: /openapi.json lists their routes
  const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  t.truthy(doc.paths['/v1/chat/completions']);
  t.truthy(doc.paths['/v1/messages']);
  gw.child.kill('SIGTERM');
  t.is(await gw.exited, 0);
});

test("the image's command line: first run writes /data/gateway.toml, keeps the store in /data, answers the health check, and a restart keeps the secrets", async (t) => {
  const volume = await mkdtemp(join(tmpdir(), 'gw-container-'));
  t.teardown(() => rm(volume, { recursive: true, force: true }));
  const args = CMD.slice(2).map((a) => a.replace(/^\/data(?=\/|$)/, volume).replace('0.0.0.0:5632', '127.0.0.1:0'));
  t.is(CMD[0], 'node');
  t.is(CMD[1], 'cli/gw.js');

  const first = await spawnGateway(args, { cwd: ROOT });
  t.teardown(() => {
    first.child.kill('SIGKILL');
  });
  const port = new URL(first.url).port;
  const config = await readFile(join(volume, 'gateway.toml'), 'utf8');
  const token = /^admin_token = "(sk-[A-Za-z0-9_-]{32,})"/m.exec(config)?.[1];
  t.truthy(token);
  t.regex(config, /^\[keys\.default\][^\n]*\nkey = "sk-[A-Za-z0-9_-]{32,}"/m);
  t.true(existsSync(join(volume, 'data', 'CURRENT')), 'the LevelDB store lives under /data/data');

  const health = HEALTHCHECK.map((a) => a.replace('127.0.0.1:5632', `127.0.0.1:${port}`));
  t.is(health[0], 'node');
  t.is(await run(health, ROOT), 0);
  const admin = await fetch(`${first.url}/v1/admin/keys`, { headers: { authorization: `Bearer ${token}` } });
  t.is(admin.status, 200);

  first.child.kill('SIGTERM');
  t.is(await first.exited, 0);
  t.is(await run(health, ROOT), 1, 'the health check fails when nothing serves');

  const second = await spawnGateway(args, { cwd: ROOT });
  t.teardown(() => {
    second.child.kill('SIGKILL');
  });
  t.is(await readFile(join(volume, 'gateway.toml'), 'utf8'), config, 'an existing config is never rewritten');
  second.child.kill('SIGTERM');
  t.is(await second.exited, 0);
});
