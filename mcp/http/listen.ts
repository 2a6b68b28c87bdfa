/**
 * The GET stream of a 2025-11-25 session: server-to-client notifications as SSE. gw sends
 * `notifications/{tools,prompts,resources}/list_changed` when the catalog changes (a server
 * came up, went down, listed new tools) or when what the session's key may use changed (a
 * PATCH of its `mcp_tools`, on any instance), and a `: ping` comment every 15 s of silence.
 * The stream ends when the session ends or its key is revoked. Any instance serves it: the
 * catalog and the keys are the same everywhere.
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { Snapshot } from '../../core/snapshot.ts';
import type { CatalogChange } from '../servers.ts';

const PING_MS = 15_000;
const CHECK_MS = 1000;
/** The session's record is read again this often (has it ended?). */
const SESSION_CHECK_MS = 10_000;

export interface ListenDeps {
  /** Subscribes to catalog changes; returns the unsubscribe. */
  onChange(fn: (c: CatalogChange) => void): () => void;
  /** The snapshot now (the key's settings as they are now). */
  snapshot(): Snapshot;
  /** Whether the session still exists. */
  alive(sessionId: string): Promise<boolean>;
}

/** Answers `ctx` with the session's notification stream. `keyName`: undefined on an open gateway. */
export function openStream(ctx: Context, deps: ListenDeps, sessionId: string, keyName: string | undefined): void {
  const out = new PassThrough();
  ctx.status = 200;
  ctx.set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'mcp-session-id': sessionId });
  ctx.body = out;
  let last = Date.now();
  const send = (method: string) => {
    last = Date.now();
    out.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method })}\n\n`);
  };
  const changed = (c: CatalogChange) => {
    if (c.tools) send('notifications/tools/list_changed');
    if (c.prompts) send('notifications/prompts/list_changed');
    if (c.resources) send('notifications/resources/list_changed');
  };
  const unsubscribe = deps.onChange(changed);
  const tools = () => JSON.stringify(keyName === undefined ? null : (deps.snapshot().keys.info(keyName)?.mcpTools ?? null));
  let granted = tools();
  let checkedAt = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    // a revoked key ends the stream; a changed mcp_tools changes what the session may list
    if (keyName !== undefined && !deps.snapshot().keys.info(keyName)) return end();
    const g = tools();
    if (g !== granted) {
      granted = g;
      changed({ tools: true, prompts: true, resources: true });
    }
    if (now - last >= PING_MS) {
      last = now;
      out.write(': ping\n\n');
    }
    if (now - checkedAt >= SESSION_CHECK_MS) {
      checkedAt = now;
      deps.alive(sessionId).then(
        (ok) => ok || end(),
        () => undefined,
      );
    }
  }, CHECK_MS);
  timer.unref();
  let ended = false;
  function end(): void {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    unsubscribe();
    out.end();
  }
  ctx.req.once('close', end);
  out.once('close', end);
}
