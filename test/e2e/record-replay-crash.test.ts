/**
 * Crash safety of recording: `gw serve --record <path>` as a child process under load (JSON
 * answers and streams from 8 concurrent clients), killed with SIGKILL mid-flight. The
 * cassette reads back — a line the kill cut short is ignored, nothing else is skipped — with
 * at most one entry fewer than the answers the clients had received whole before the kill,
 * and a replay gateway serves from it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import OpenAI from 'openai';
import { readCassette } from '../../protocols/cassette/reader.ts';
import { chatCompletion } from '../helpers/completion.ts';
import { baseConfig, KEY, spawnGateway, startGateway } from '../helpers/gateway.ts';
import { replyJson, replySse, startUpstream, toSse } from '../helpers/upstream.ts';

const MODEL = 'crash-model';
const CLIENTS = 8;
/** Answers received whole before the kill: enough that the recorder is busy. */
const ANSWERS = 200;

test('kill -9 while recording under load leaves a cassette that reads back with at most one entry lost', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-rr-crash-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const up = await startUpstream((r, res) => {
    const text = `answer to ${r.json.messages[0].content}`;
    if (r.json.stream)
      return replySse(
        res,
        toSse([
          { id: 'x', object: 'chat.completion.chunk', created: 1, model: MODEL, choices: [{ index: 0, delta: { content: text }, finish_reason: 'stop' }] },
          {
            id: 'x',
            object: 'chat.completion.chunk',
            created: 1,
            model: MODEL,
            choices: [],
            usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
          },
        ]),
      );
    replyJson(res, 200, chatCompletion(text, MODEL, { prompt_tokens: 4, completion_tokens: 3 }));
  });
  t.teardown(() => up.close());
  const config = join(dir, 'gateway.toml');
  const cassette = join(dir, 'crash.jsonl');
  await writeFile(
    config,
    baseConfig(`[providers.up]\nkind = "openai"\napi_key = "sk-crash-upstream-key-0123456789"\nbase_url = "${up.origin}/v1"\nmodels = ["${MODEL}"]\n`),
  );
  const gw = await spawnGateway(['serve', '--config', config, '--record', cassette]);
  t.teardown(() => {
    gw.child.kill('SIGKILL');
  });

  let completed = 0;
  let sent = 0;
  let stop = false;
  const client = async (n: number) => {
    for (let i = 0; !stop; i++) {
      const stream = i % 2 === 1;
      sent++;
      try {
        const res = await fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `c${n}-${i}` }], stream }),
        });
        const text = await res.text();
        if (res.status === 200 && (stream ? text.includes('[DONE]') : text.includes('answer to'))) completed++;
      } catch {
        // the kill cut it
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
  const deadline = Date.now() + 20_000;
  while (completed < ANSWERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const whole = completed;
  gw.child.kill('SIGKILL');
  t.is(await gw.exited, 'SIGKILL');
  stop = true;
  await Promise.all(clients);
  t.true(whole >= ANSWERS, `only ${whole} answers before the deadline`);

  const read = await readCassette(cassette);
  t.log(`${whole} whole, ${read.entries.length} entries, ${sent} sent, cut: ${read.cut.length}`);
  t.deepEqual(read.skipped, [], 'no line but a cut last one is unreadable');
  t.true(read.entries.length >= whole - 1, `${read.entries.length} entries for ${whole} answers received whole`);
  t.true(read.entries.length <= sent);
  t.true(read.entries.every((l) => l.entry.response.status === 200 && l.entry.gw?.usage !== undefined));

  // and it replays
  const replay = await startGateway(baseConfig(`[providers.up]\nkind = "replay"\ncassette = "${cassette}"\n`));
  t.teardown(() => replay.stop());
  const first = read.entries.find((l) => l.entry.response.body !== undefined)!.entry;
  const answer = await new OpenAI({ baseURL: replay.baseURL, apiKey: KEY, maxRetries: 0 }).chat.completions.create(
    first.request.body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
  );
  t.is(answer.choices[0]!.message.content, (first.response.body as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content);
});
