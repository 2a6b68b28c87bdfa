/**
 * The admin API of the MCP gateway (admin token; OpenAI error shape like all of `/v1/admin`):
 *
 *   GET    /v1/admin/mcp-servers          every server: settings (no secrets), state, last
 *                                         error, tools (both names), the last minutes' figures
 *   GET    /v1/admin/mcp-servers/{name}   the same for one, with its stderr lines (stdio)
 *   POST   /v1/admin/mcp-servers          `{name, ...[mcp_servers.<name>] fields}` → 201 listing,
 *                                         once its first connection attempt ended (up, or down
 *                                         with its error: gw keeps reconnecting)
 *   DELETE /v1/admin/mcp-servers/{name}   204; 409 when the config file defines it
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { GwState } from '../core/pipeline/state.ts';
import { mcpServerNameSchema } from '../lib/config/mcp-schema.ts';
import { OPENAI_ERRORS, type RouteRegistry, type RouteSpec } from '../lib/http/routes.ts';
import { validate } from '../lib/schemas.ts';
import { SERVER_NOT_FOUND } from './errors.ts';
import type { ServerListing } from './listing.ts';

/** How long POST waits for a new server's first connection attempt. */
const CREATE_WAIT_MS = 10_000;

const nameOnly = z.looseObject({ name: mcpServerNameSchema });

/** What the admin routes need from the MCP gateway. */
export interface AdminDeps {
  list(): Promise<ServerListing[]>;
  one(name: string): Promise<ServerListing | undefined>;
  create(name: string, section: Record<string, unknown>, waitMs: number): Promise<ServerListing>;
  delete(name: string): Promise<void>;
}

export function mountAdmin(routes: RouteRegistry, d: AdminDeps): void {
  const add = (method: RouteSpec['method'], path: string, handler: RouteSpec['handler'], body = false) =>
    routes.add({ method, path, auth: 'admin', errors: OPENAI_ERRORS, body, handler, owner: 'MCP admin API' });
  add('GET', '/v1/admin/mcp-servers', async (ctx) => sendJson(ctx, 200, { object: 'list', data: await d.list() }));
  add('GET', '/v1/admin/mcp-servers/:name', async (ctx) => {
    const one = await d.one(ctx.params.name!);
    if (!one) throw SERVER_NOT_FOUND(ctx.params.name!);
    sendJson(ctx, 200, one);
  });
  add(
    'POST',
    '/v1/admin/mcp-servers',
    async (ctx) => {
      const input = (ctx.state as GwState).body!.body;
      const invalid = validate(nameOnly, input);
      if (invalid) throw invalid;
      const { name, ...section } = input as { name: string };
      sendJson(ctx, 201, await d.create(name, section, CREATE_WAIT_MS));
    },
    true,
  );
  add('DELETE', '/v1/admin/mcp-servers/:name', async (ctx) => {
    await d.delete(ctx.params.name!);
    ctx.status = 204;
  });
}

function sendJson(ctx: Context, status: number, value: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(value);
}
