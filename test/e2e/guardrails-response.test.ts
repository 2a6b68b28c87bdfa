/**
 * Guardrails on answers and streams (issue 41), through real sockets and the official SDKs of
 * every client format, each against a native and a translated provider: a secret in an
 * answer's text or in a tool call's arguments is masked (split across events at any point in a
 * stream, masked whole) or blocked (a whole answer: 400 `guardrail_blocked`; a stream: cut
 * before the match's first byte, ending as the format ends an answer its vendor's filter
 * stopped: `content_filter`, Gemini's `SAFETY`, Messages' `refusal`; Responses' error event);
 * model names in the text stay as written.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { ADMIN_TOKEN, KEY, KEY2, type TestGateway } from '../helpers/gateway.ts';
import { SECRETS } from '../helpers/guardrails-secrets.ts';
import { FORMAT_CASES, guardedGateway, MODELS, type Script } from '../helpers/guardrails-upstream.ts';

const { chat: CHAT, claude: CLAUDE } = MODELS;
const GITHUB = SECRETS[2]!.value;
const KEY3 = 'sk-test-key-third-0123456789abcdef';
const AWS_ID = SECRETS[0]!.value;
const TOOL = 'deploy-v2';

const CONFIG = `
[extensions.request_log]

[extensions.guardrails.checks.secrets]
type = "secrets"
action = "mask"
phase = ["response"]

[extensions.guardrails.checks.no_secrets]
type = "secrets"
action = "block"
phase = ["response"]
keys = ["second"]
`;

const setup = (t: ExecutionContext) => guardedGateway(t, CONFIG);

/** What a client made of an answer: its text, its tool call's arguments, how it ended, or the error it threw. */
interface Seen {
  text: string;
  args: string | undefined;
  finish: string | undefined;
  error: { status?: number; message: string } | undefined;
}

type Client = (gw: TestGateway, key: string, model: string, stream: boolean) => Promise<Seen>;

const tools = { name: TOOL, description: 'Deploys', parameters: { type: 'object' as const, properties: { token: { type: 'string' } } } };

async function caught(run: () => Promise<Omit<Seen, 'error'>>, partial: Omit<Seen, 'error'>): Promise<Seen> {
  try {
    return { ...(await run()), error: undefined };
  } catch (err) {
    const e = err as { status?: number; message: string };
    return { ...partial, error: { status: e.status, message: e.message } };
  }
}

/** Each client format driven by its official SDK. */
const CLIENTS: Record<string, Client> = {
  async chat(gw, key, model, stream) {
    const client = new OpenAI({ baseURL: gw.baseURL, apiKey: key, maxRetries: 0 });
    const seen = { text: '', args: undefined as string | undefined, finish: undefined as string | undefined };
    const body = { model, messages: [{ role: 'user' as const, content: 'go' }], tools: [{ type: 'function' as const, function: tools }] };
    return caught(async () => {
      if (!stream) {
        const c = await client.chat.completions.create(body);
        const call = c.choices[0]!.message.tool_calls?.[0];
        return {
          text: c.choices[0]!.message.content ?? '',
          args: call?.type === 'function' ? call.function.arguments : undefined,
          finish: c.choices[0]!.finish_reason,
        };
      }
      for await (const chunk of await client.chat.completions.create({ ...body, stream: true })) {
        const choice = chunk.choices[0];
        if (choice === undefined) continue;
        seen.text += choice.delta.content ?? '';
        const call = choice.delta.tool_calls?.[0];
        if (call?.function?.arguments !== undefined) seen.args = (seen.args ?? '') + call.function.arguments;
        if (choice.finish_reason) seen.finish = choice.finish_reason;
      }
      return seen;
    }, seen);
  },
  async messages(gw, key, model, stream) {
    const client = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
    const seen = { text: '', args: undefined as string | undefined, finish: undefined as string | undefined };
    const body = {
      model,
      max_tokens: 64,
      messages: [{ role: 'user' as const, content: 'go' }],
      tools: [{ name: TOOL, description: 'Deploys', input_schema: tools.parameters }],
    };
    return caught(async () => {
      let msg: Anthropic.Message;
      if (stream) {
        const s = client.messages.stream(body);
        s.on('text', (text) => {
          seen.text += text;
        });
        msg = await s.finalMessage();
      } else msg = await client.messages.create(body);
      const call = msg.content.find((b) => b.type === 'tool_use');
      return {
        text: msg.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
        args: call ? JSON.stringify(call.input) : undefined,
        finish: msg.stop_reason ?? undefined,
      };
    }, seen);
  },
  async responses(gw, key, model, stream) {
    const client = new OpenAI({ baseURL: gw.baseURL, apiKey: key, maxRetries: 0 });
    const seen = { text: '', args: undefined as string | undefined, finish: undefined as string | undefined };
    const body = { model, input: 'go', store: false, tools: [{ type: 'function' as const, strict: false, ...tools }] };
    const read = (r: OpenAI.Responses.Response) => {
      const call = r.output.find((o) => o.type === 'function_call');
      let text = '';
      for (const item of r.output) if (item.type === 'message') for (const part of item.content) if (part.type === 'output_text') text += part.text;
      return { text, args: call?.type === 'function_call' ? call.arguments : undefined, finish: r.incomplete_details?.reason ?? r.status };
    };
    return caught(async () => {
      if (!stream) return read(await client.responses.create(body));
      let final: OpenAI.Responses.Response | undefined;
      for await (const ev of await client.responses.create({ ...body, stream: true })) {
        if (ev.type === 'response.output_text.delta') seen.text += ev.delta;
        if (ev.type === 'response.completed' || ev.type === 'response.incomplete') final = ev.response;
      }
      if (final === undefined) return seen;
      // the deltas and the final response (text the stream repeats whole) say the same
      const whole = read(final);
      if (whole.text !== seen.text) throw new Error(`deltas said ${JSON.stringify(seen.text)}, the final response ${JSON.stringify(whole.text)}`);
      return whole;
    }, seen);
  },
  async gemini(gw, key, model, stream) {
    const client = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
    const seen = { text: '', args: undefined as string | undefined, finish: undefined as string | undefined };
    const params = {
      model,
      contents: 'go',
      config: { tools: [{ functionDeclarations: [{ name: TOOL, description: 'Deploys', parametersJsonSchema: tools.parameters }] }] },
    };
    const take = (r: Awaited<ReturnType<typeof client.models.generateContent>>) => {
      const candidate = r.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        if (part.text) seen.text += part.text;
        if (part.functionCall) seen.args = JSON.stringify(part.functionCall.args);
      }
      if (candidate?.finishReason) seen.finish = candidate.finishReason;
    };
    return caught(async () => {
      if (!stream) take(await client.models.generateContent(params));
      else for await (const r of await client.models.generateContentStream(params)) take(r);
      return seen;
    }, seen);
  },
};

const CASES = FORMAT_CASES;

/** `text` in `n` pieces cut inside `secret` (its first third in one piece, the rest spread over the next ones). */
function split(text: string, secret: string, n: number): string[] {
  const at = text.indexOf(secret) + Math.floor(secret.length / 3);
  const rest = text.slice(at);
  const size = Math.ceil(rest.length / (n - 1));
  const out = [text.slice(0, at)];
  for (let i = 0; i < rest.length; i += size) out.push(rest.slice(i, i + size));
  return out;
}

const NAMES = `Served by ${CHAT} and ${CLAUDE}.`;

test.serial('mask: a secret in an answer’s text and tool-call arguments reaches no client, streamed or not; model names in the text untouched', async (t) => {
  const { gw, up } = await setup(t);
  const text = `${NAMES} Use ${GITHUB} to deploy.`;
  const args = `{"token":"${AWS_ID}","env":"prod"}`;
  for (const stream of [false, true]) {
    for (const { format, model } of CASES) {
      // tool-call arguments held until the call is complete: the id arrives in pieces too
      up.script = { text: split(text, GITHUB, 5), call: { name: TOOL, args: split(args, AWS_ID, 4) } } satisfies Script;
      const seen = await CLIENTS[format]!(gw, KEY, model, stream);
      const label = `${format} → ${model}${stream ? ' (stream)' : ''}`;
      t.is(seen.error, undefined, label);
      t.is(seen.text, `${NAMES} Use [SECRET:github-token] to deploy.`, label);
      t.deepEqual(JSON.parse(seen.args ?? '{}'), { token: '[SECRET:aws-access-key]', env: 'prod' }, label);
    }
  }
});

test.serial(
  'block: a whole answer is replaced by the 400; a stream is cut before the secret, the text before it intact, ending as the format ends a filtered answer',
  async (t) => {
    const { gw, up } = await setup(t);
    const before = 'Here is the token you asked for: ';
    up.script = { text: split(`${before}${GITHUB} and more text after it.`, GITHUB, 4) };
    for (const { format, model } of CASES) {
      const label = `${format} → ${model}`;
      const whole = await CLIENTS[format]!(gw, KEY2, model, false);
      t.is(whole.error?.status, 400, label);
      t.regex(whole.error!.message, /blocked by guardrail 'no_secrets': github-token found in the response/, label);

      const streamed = await CLIENTS[format]!(gw, KEY2, model, true);
      t.false(`${streamed.text}${streamed.error?.message ?? ''}`.includes(GITHUB.slice(0, 8)), `${label}: no byte of the secret`);
      if (format === 'responses') {
        // Responses ends with its own error event: the SDK throws it
        t.regex(streamed.error?.message ?? '', /guardrail 'no_secrets'/, label);
        t.is(streamed.text, before, label);
      } else {
        // a filtered finish: the message the client gets is what came before the secret
        t.is(streamed.error, undefined, label);
        t.is(streamed.finish, { chat: 'content_filter', gemini: 'SAFETY', messages: 'refusal' }[format], label);
        t.is(streamed.text, before, label);
      }
    }
    // the request log records the block of each stream, with no text
    let entries: any[] = [];
    for (let i = 0; i < 50 && entries.length < 16; i++) {
      await new Promise((r) => setTimeout(r, 20));
      entries = (await (await fetch(`${gw.url}/v1/requests?limit=20`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any[];
    }
    t.is(entries.length, 16);
    for (const entry of entries)
      t.like(
        entry.guardrails.find((g: any) => g.check === 'no_secrets'),
        { phase: 'response', action: 'block', entity: 'github-token', count: 1 },
      );
    t.false(JSON.stringify(entries).includes(GITHUB));
    // a blocked whole answer was made and billed upstream: it is charged, as a stream cut mid-way is
    for (const entry of entries.filter((e) => !e.stream))
      t.like(entry, { status: 400, error_code: 'guardrail_blocked', prompt_tokens: 12, completion_tokens: 9 });
  },
);

test.serial('a tool call whose arguments carry a secret is blocked whole, streamed or not: the client never gets its arguments', async (t) => {
  const { gw, up } = await setup(t);
  up.script = { text: ['Calling the tool.'], call: { name: TOOL, args: split(`{"token":"${AWS_ID}"}`, AWS_ID, 3) } };
  for (const stream of [false, true]) {
    for (const { format, model } of CASES) {
      const seen = await CLIENTS[format]!(gw, KEY2, model, stream);
      const label = `${format} → ${model}${stream ? ' (stream)' : ''}`;
      t.falsy(seen.args, label);
      t.false(JSON.stringify(seen).includes(AWS_ID.slice(4, 12)), label);
      if (!stream) t.is(seen.error?.status, 400, label);
      else t.true(seen.error !== undefined || ['content_filter', 'SAFETY', 'refusal'].includes(seen.finish ?? ''), `${label}: ${JSON.stringify(seen)}`);
    }
  }
});

test.serial('an answer the cache kept for a key no check applies to is checked again for a key one applies to', async (t) => {
  const { gw, up } = await guardedGateway(t, `${CONFIG}\n[extensions.cache]\nttl_seconds = 60\n\n[keys.third]\nkey = "${KEY3}"\nguardrails = ["-secrets"]\n`);
  up.script = { text: [`Use ${GITHUB} to deploy.`] };
  const body = { model: CHAT, messages: [{ role: 'user', content: 'which token?' }] };
  const ask = (key: string) =>
    fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const raw = await ask(KEY3);
  t.true((await raw.text()).includes(GITHUB), 'the key that opted out gets the answer as it came');
  const masked = await ask(KEY);
  t.is(masked.headers.get('x-gw-cache'), 'hit');
  t.true((await masked.text()).includes('[SECRET:github-token]'));
  const blocked = await ask(KEY2);
  t.is(blocked.status, 400);
  t.false((await blocked.text()).includes(GITHUB));
  t.is(up.received.length, 1);
});

test.serial('Responses keeps the answer the client got: stored masked (GET /v1/responses/{id}), native and translated', async (t) => {
  const { gw, up } = await guardedGateway(t, CONFIG);
  up.script = { text: [`Use ${GITHUB} to deploy.`] };
  for (const model of [CHAT, MODELS.translated]) {
    const res = await fetch(`${gw.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'which token?' }),
    });
    const sent = (await res.json()) as { id: string };
    t.is(res.status, 200, model);
    const stored = await (await fetch(`${gw.baseURL}/responses/${sent.id}`, { headers: { authorization: `Bearer ${KEY}` } })).text();
    t.true(stored.includes('[SECRET:github-token]'), `${model}: ${stored}`);
    t.false(stored.includes(GITHUB), model);
  }
});
