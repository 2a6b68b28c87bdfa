/**
 * The start every gateway route shares: validate the body, build the RequestContext, check the
 * key may call the model (403), resolve it (404), take an in-flight slot (429), run onRequest.
 */
import type { Context } from 'koa';
import type { z } from 'zod';
import { EDIT_WINDOW, RequestContext, type RequestFacts, type RequestProtocol } from '../context.ts';
import { plan, type DispatchPlan } from '../dispatch.ts';
import { MODEL_NOT_ALLOWED } from '../error-codes.ts';
import { affinityKey } from '../../lib/resilience/affinity.ts';
import type { PipelineHost } from './host.ts';
import type { CallContext } from '../../lib/provider.ts';
import type { Snapshot } from '../snapshot.ts';
import { validateRequest } from '../../lib/validate-compiled.ts';
import { INVALID_REQUEST } from '../error-codes.ts';
import { finish } from './finish.ts';
import { clientSignal } from './respond.ts';
import { isLarge, nextTurn } from '../../lib/turns.ts';
import { validateInSlices } from '../../lib/validate-sliced.ts';
import type { GwState } from './state.ts';

/** The longest model id or alias gw accepts (the longest real ones are under 100). */
export const MAX_MODEL_CHARS = 256;

/** What a format hands to `admit`. */
export interface AdmitInput {
  /** The request's facts, read by the format from its body or URL (`format` is filled in). */
  facts: Omit<RequestFacts, 'format'>;
  /** Validates the body first (400 naming the field). */
  schema?: z.ZodType;
  /** The body to account and forward; default the parsed JSON body. */
  body?: Record<string, unknown>;
  /** Its exact text; default the body's bytes as received. */
  raw?: string;
  /** What names the conversation for prompt-cache affinity (`Generate.affinity`); called only where the group keeps affinity. */
  affinity?: (body: Record<string, unknown>) => string | undefined;
}

/** An admitted request: its context, snapshot, dispatch plan, and what providers get. */
export interface Admission {
  readonly rc: RequestContext;
  readonly snap: Snapshot;
  readonly plan: DispatchPlan;
  /** The client's body with the canonical model. */
  readonly body: Record<string, unknown>;
  /** The call context providers get (the client's bytes ride along only when the body is unchanged from them). */
  readonly call: CallContext;
}

/** Admits a request (undefined: an onRequest tap answered). @throws GatewayError 400, 403 `model_not_allowed`, 404, 429 `parallel_limit_exceeded`, or a tap's */
export async function admit(gw: PipelineHost, ctx: Context, protocol: RequestProtocol, input: AdmitInput): Promise<Admission | undefined> {
  const st = ctx.state as GwState;
  const body = input.body ?? st.body?.body ?? {};
  const raw = input.raw ?? st.body?.raw ?? '';
  if (input.schema) {
    // a large body: the parse was one task, the validation is a few more (lib/turns.ts)
    const invalid = isLarge(raw) ? await validateInSlices(input.schema, body, nextTurn) : validateRequest(input.schema, body);
    if (invalid) throw invalid;
  }
  const snap = st.snap;
  const facts = input.facts as RequestFacts;
  // bounded before anything looks at it: a megabyte model name must not cost a close-match
  // search (or be echoed back whole)
  if (typeof facts.model !== 'string' || facts.model.length === 0 || facts.model.length > MAX_MODEL_CHARS) {
    throw INVALID_REQUEST(`model: expected a model id of 1 to ${MAX_MODEL_CHARS} characters`, { param: 'model' });
  }
  facts.format = protocol.id;
  const canonical = snap.table.resolve(facts.model);
  const rc = new RequestContext(st.id, facts, st.key, body, raw, canonical, st.startedAt, st.log, st.state, st.traceId, protocol);
  st.rc = rc;
  // message content only at trace (-vvv): bodies may hold users' data, never gw's secrets
  if (rc.log.isLevelEnabled('trace')) rc.log.trace({ req: rc.id, route: rc.route, body: raw }, 'request body');
  const key = st.key;
  // what the key may call is decided before anything else looks at the model: a refused
  // model costs no upstream call, no reservation, and tells nothing about what exists
  const allows = key?.models === undefined ? undefined : key.allows;
  if (allows !== undefined && !allows(canonical)) throw MODEL_NOT_ALLOWED({ key: key!.name, model: rc.model, canonical, patterns: key!.models! });
  const p = plan(snap.table, rc.model, canonical, allows);
  if (input.affinity !== undefined && p.group.affinity) {
    const source = input.affinity(body);
    if (source !== undefined) p.affinity = affinityKey(key?.name ?? '', canonical, source);
  }
  if (key?.maxParallelRequests !== undefined) await gw.inflight.acquire(rc);
  // edits of rc.content() are honoured here, and only here: an edited body goes upstream re-serialized
  let edited = false;
  if (gw.hooks.onRequest.isUsed()) {
    rc[EDIT_WINDOW](true);
    let early: Awaited<ReturnType<typeof gw.hooks.onRequest.promise>>;
    try {
      early = await gw.hooks.onRequest.promise(rc);
    } finally {
      edited = rc[EDIT_WINDOW](false);
    }
    if (early !== undefined) {
      rc.status = early.status;
      const text = typeof early.body === 'string' ? early.body : JSON.stringify(early.body);
      // onResponse runs for an early answer too, so an earlier tap that reserved something
      // (budget) releases it: every admitted request ends in exactly one of onResponse/onError
      await finish(gw, ctx, rc, { status: early.status, body: text, headers: early.headers });
      return undefined;
    }
  }
  const unchanged = canonical === rc.model;
  return {
    rc,
    snap,
    plan: p,
    body: unchanged || body.model === undefined ? body : { ...body, model: canonical },
    call: {
      signal: clientSignal(ctx),
      log: rc.log,
      requestId: rc.id,
      headers: ctx.headers,
      rawBody: unchanged && !edited ? raw : undefined,
      query: ctx.querystring,
      large: isLarge(raw),
    },
  };
}
