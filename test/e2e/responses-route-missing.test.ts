/**
 * An `openai` section in front of a chat-only server (vLLM, Ollama, llama.cpp…): its 404
 * for POST /v1/responses is about the route, so the provider switches to translated once,
 * with one warning, and the request that found out is served translated — with the openai
 * SDK and with the real Codex CLI, which would otherwise retry the 404 and fail. An
 * upstream's 404 for an unknown model switches nothing, and a configured `responses`
 * setting always wins.
 */
import type { ServerResponse } from 'node:http';
import test from 'ava';
import { isRouteMissing } from '../../protocols/openai-responses/route-missing.ts';
import { GatewayError } from '../../core/errors.ts';
import { runCodex } from '../helpers/codex.ts';
import { replyJson, type Received } from '../helpers/upstream.ts';
import { KEY, replyChat, rig } from './responses-helpers.ts';

const MODEL = 'llama-3.1-8b';

/** A chat-only server: `/v1/responses` answers `missing`, chat completions answer `text` (or run Codex's turn). */
function chatOnly(missing: (res: ServerResponse) => void) {
  return (req: Received, res: ServerResponse) => {
    if (req.url === '/v1/responses') return missing(res);
    const last = req.json.messages.at(-1);
    if (last.role === 'tool') return replyChat(res, req.json.stream === true, { text: 'The command printed gw-codex-ok.' });
    if (JSON.stringify(last.content).includes('echo gw-codex-ok'))
      return replyChat(res, req.json.stream === true, {
        calls: [{ id: 'call_route_1', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo gw-codex-ok' }) }],
      });
    replyChat(res, req.json.stream === true, { text: 'translated answer' });
  };
}

const noRoute = (res: ServerResponse) => {
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('no route POST /v1/responses');
};

const paths = (received: Received[]) => received.map((r) => r.url);
const warnings = (logs: string[]) => logs.filter((l) => l.includes('has no Responses API'));

test('a route 404 switches the provider to translated once, with one warning; the same request is answered', async (t) => {
  const { up, gw, client } = await rig(t, 'openai', MODEL, chatOnly(noRoute));
  const first = await client.responses.create({ model: MODEL, input: 'hi' });
  t.is(first.output_text, 'translated answer');
  t.deepEqual(paths(up.received), ['/v1/responses', '/v1/chat/completions']);

  const stream = await client.responses.create({ model: MODEL, input: 'hi', stream: true });
  let text = '';
  for await (const ev of stream) if (ev.type === 'response.output_text.delta') text += ev.delta;
  t.is(text, 'translated answer');
  t.deepEqual(paths(up.received), ['/v1/responses', '/v1/chat/completions', '/v1/chat/completions'], 'no second try of /v1/responses');

  const logged = warnings(gw.logs);
  t.is(logged.length, 1);
  t.like(JSON.parse(logged[0]!), { level: 40, provider: 'openai' });
  t.regex(logged[0]!, /responses = \\"translated\\" or \\"native\\" on \[providers\.openai\]/);
  t.false(logged[0]!.includes('sk-openai-upstream'));
});

test('Codex CLI completes a tool-using turn against an openai section whose server has no Responses API', async (t) => {
  const { up, gw } = await rig(
    t,
    'openai',
    MODEL,
    chatOnly((res) => replyJson(res, 404, { detail: 'Not Found' })),
  );
  const run = await runCodex({ baseURL: gw.baseURL, apiKey: KEY, model: MODEL, prompt: 'Run echo gw-codex-ok and tell me what it printed.' });
  t.false(run.timedOut);
  t.is(run.exitCode, 0, run.stderr);
  t.is(run.stdout.trim(), 'The command printed gw-codex-ok.');
  t.deepEqual(paths(up.received), ['/v1/responses', '/v1/chat/completions', '/v1/chat/completions']);
  t.is(warnings(gw.logs).length, 1);
});

test("an upstream's 404 for an unknown model is passed on and switches nothing", async (t) => {
  const { up, gw, client } = await rig(
    t,
    'openai',
    MODEL,
    chatOnly((res) =>
      replyJson(res, 404, {
        error: { message: `The model '${MODEL}' does not exist or you do not have access to it.`, type: 'invalid_request_error', code: 'model_not_found' },
      }),
    ),
  );
  for (let i = 0; i < 2; i++) {
    const err = await t.throwsAsync(client.responses.create({ model: MODEL, input: 'hi' }));
    t.is((err as { status?: number }).status, 404);
  }
  t.deepEqual(paths(up.received), ['/v1/responses', '/v1/responses']);
  t.is(warnings(gw.logs).length, 0);
});

test('a configured `responses` wins: "native" passes the route 404 on every time, "translated" never tries the route', async (t) => {
  // the rig's extra text lands in [providers.openai], the last section
  const native = await rig(t, 'openai', MODEL, chatOnly(noRoute), 'responses = "native"\n');
  for (let i = 0; i < 2; i++) {
    const err = await t.throwsAsync(native.client.responses.create({ model: MODEL, input: 'hi' }));
    t.is((err as { status?: number }).status, 404);
  }
  t.deepEqual(paths(native.up.received), ['/v1/responses', '/v1/responses']);
  t.is(warnings(native.gw.logs).length, 0);

  const translated = await rig(t, 'openai', MODEL, chatOnly(noRoute), 'responses = "translated"\n');
  t.is((await translated.client.responses.create({ model: MODEL, input: 'hi' })).output_text, 'translated answer');
  t.deepEqual(paths(translated.up.received), ['/v1/chat/completions']);
});

test('what counts as a route 404', (t) => {
  const e = (status: number, message: string, code: string | null = null) =>
    new GatewayError(status, `provider p: ${message}`, { upstreamStatus: status, code });
  t.true(isRouteMissing(e(404, 'HTTP 404: no route POST /v1/responses'), 'p'));
  t.true(isRouteMissing(e(404, 'Not Found'), 'p'));
  t.true(isRouteMissing(e(404, 'HTTP 404: 404 page not found'), 'p'));
  t.true(isRouteMissing(e(404, 'File Not Found'), 'p'), "llama.cpp's");
  t.true(isRouteMissing(new GatewayError(404, 'provider models-hub: Not Found', { upstreamStatus: 404 }), 'models-hub'), "the provider's own name is not read");
  t.false(isRouteMissing(e(404, "The model 'x' does not exist or you do not have access to it.", 'model_not_found'), 'p'));
  t.false(isRouteMissing(e(404, 'The model `x` does not exist.'), 'p'), "vLLM's unknown model");
  t.false(isRouteMissing(e(404, 'model "x" not found, try pulling it first'), 'p'), "Ollama's unknown model");
  t.false(isRouteMissing(e(400, 'no route'), 'p'));
  t.false(isRouteMissing(new Error('x'), 'p'));
});
