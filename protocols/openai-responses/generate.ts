/**
 * POST /v1/responses as a stateless generate declaration: native passthrough where the upstream
 * speaks Responses, else translated. A stateful format spreads this and prepares a {@link ResponsesTurn}.
 */
import type { RequestContext } from 'gw/plugin';
import { bodyOf, type Generate } from 'gw/plugin/format';
import { parseUpstreamJson } from '../../lib/http/upstream.ts';
import { responsesAffinity } from './affinity.ts';
import { encodeAll, encodeResponsesEvent } from './encode-event.ts';
import { responsesFirstError } from './errors.ts';
import { chatCompletionToResponse } from './from-chat-completion.ts';
import { CommonToResponsesStep } from './from-common-step.ts';
import { fromResponsesUsage } from './map-usage.ts';
import { ResponsesNativeStep } from './native-step.ts';
import { newResponseId } from './response-base.ts';
import { ResponsesRouteMissing } from './route-missing.ts';
import { responsesRequestSchema } from './schema.ts';
import { responsesToChatRequest } from './to-chat-request.ts';
import type { ResponsesInputItem, ResponsesRequest, ResponsesResponse, ResponsesStreamEvent } from './types.ts';

/** A request's state, when the format keeps one (prepared per request); every member optional. */
export interface ResponsesTurn {
  /** The input to translate instead of the body's (stored turns expanded); undefined: the body's own. */
  input?(): Promise<ResponsesInputItem[] | undefined>;
  /** Keeps an answer (never throws); `native`: a native upstream made it. */
  save?(response: ResponsesResponse, native: boolean): Promise<void>;
}

/** What a translated answer needs of the translation. */
export interface ResponsesTranslation {
  toolNames: ReturnType<typeof responsesToChatRequest>['toolNames'];
  droppedTools: string[];
}

/** Longest `x-gw-dropped-tools` value: the tools' labels come from the client's body. */
const HEADER_MAX = 1024;

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

const answerOptions = (rc: RequestContext, t: ResponsesTranslation) => ({
  body: rc.body as ResponsesRequest,
  requestModel: rc.model,
  toolNames: t.toolNames,
  id: newResponseId(),
  store: rc.body.store !== false,
});

/** The generate declaration of POST /v1/responses. */
export const responsesGenerate: Generate<ResponsesTurn | undefined, ResponsesTranslation, ResponsesStreamEvent> = {
  label: 'Responses',
  schema: responsesRequestSchema,
  read(ctx) {
    const body = bodyOf(ctx);
    const continues = typeof body.previous_response_id === 'string' && body.previous_response_id !== '';
    return {
      facts: {
        route: 'responses',
        model: body.model as string,
        stream: body.stream === true,
        maxOutputTokens: positive(body.max_output_tokens),
        cacheable: !continues,
      },
    };
  },
  affinity: responsesAffinity,
  // stored as the client gets it, after onAnswer (a guardrail's masks in), before onResponse
  keep: (answer, native, { state }) => state?.save?.(answer as ResponsesResponse, native) ?? Promise.resolve(),
  capOutput: (body, cap) => ({ ...body, max_output_tokens: cap }),
  native: {
    firstError: responsesFirstError,
    async call(native, body, call) {
      try {
        return await native(body, call);
      } catch (err) {
        // the upstream has no Responses API after all (route-missing.ts): this request too is translated
        if (err instanceof ResponsesRouteMissing) return undefined;
        throw err;
      }
    },
    json(raw, { rc }) {
      const parsed = parseUpstreamJson<ResponsesResponse & { usage?: unknown }>(raw, rc.provider!);
      rc.usage = fromResponsesUsage(parsed?.usage);
      return parsed;
    },
    stream: ({ rc, state }, progress) => new ResponsesNativeStep(rc, progress, (response) => state?.save?.(response, true) ?? Promise.resolve()),
  },
  translated: {
    async toCommon(body, _target, { rc, provider, state }) {
      const input = await state?.input?.();
      const tr = responsesToChatRequest((input === undefined ? body : { ...body, input }) as ResponsesRequest);
      if (tr.droppedTools.length > 0)
        // how many, not which: their types and names are the client's (the debug warnings name them)
        rc.log.info({ req: rc.id, provider: provider.name, dropped: tr.droppedTools.length }, 'Responses built-in tools dropped: the provider cannot run them');
      return { req: tr.req, warnings: tr.warnings, extra: { toolNames: tr.toolNames, droppedTools: tr.droppedTools } };
    },
    headers: (t) => (t.droppedTools.length > 0 ? { 'x-gw-dropped-tools': headerValue(t.droppedTools.join(', ')) } : undefined),
    fromCommon(completion, _raw, { rc, extra }) {
      return JSON.stringify(chatCompletionToResponse(completion, answerOptions(rc, extra)));
    },
    stream({ rc, state, extra }) {
      const step = new CommonToResponsesStep(answerOptions(rc, extra));
      return {
        step,
        encode: encodeResponsesEvent,
        isTerminator: (ev) => ev.type === 'response.completed' || ev.type === 'response.incomplete',
        // saved before its event goes out: a client that reads it back at once finds it
        beforeTerminator: async (ev) => {
          if ('response' in ev) await state?.save?.(ev.response, false);
        },
        errorFrame: (err) => encodeAll(step.fail(err)),
      };
    },
  },
};

/**
 * `s` as an HTTP header value: a tool's type and name are the client's strings, and a control
 * or non-ASCII character in a header is refused by node (a 500): those are percent-encoded
 * (UTF-8; a lone surrogate as U+FFFD), and the value is cut to HEADER_MAX.
 */
export function headerValue(s: string): string {
  const safe = s.replace(/[^\x20-\x7e]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD';
    }
  });
  return safe.length > HEADER_MAX ? `${safe.slice(0, HEADER_MAX)}...` : safe;
}
