/**
 * GET /v1/models: every routable model and alias in OpenAI's list format.
 * `owned_by` names the providers serving it; aliases carry `alias_for`.
 */
import type { Context } from 'koa';
import type { Gateway } from '../gateway.ts';

export function modelsRoute(ref: () => Gateway) {
  return function models(ctx: Context): void {
    const gw = ref();
    const table = gw.table;
    const owners = new Map<string, string[]>();
    for (const p of table.providers.values()) {
      for (const m of p.models) {
        const list = owners.get(m);
        if (list) list.push(p.name);
        else owners.set(m, [p.name]);
      }
    }
    const data: Array<Record<string, unknown>> = [];
    for (const [id, by] of owners) data.push({ id, object: 'model', created: 0, owned_by: by.join(',') });
    for (const [alias, target] of table.aliasEntries()) {
      if (owners.has(alias)) continue;
      data.push({ id: alias, object: 'model', created: 0, owned_by: (owners.get(target) ?? []).join(','), alias_for: target });
    }
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ object: 'list', data });
  };
}
