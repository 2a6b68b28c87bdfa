/**
 * First run: a missing config file is created with a listen address, a fresh admin token,
 * a default gateway key, the offline mock provider and the extensions the console reads,
 * and commented examples of everything else.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** `sk-` + 43 url-safe characters (32 random bytes, base64url). */
export function generateSecret(): string {
  return `sk-${randomBytes(32).toString('base64url')}`;
}

/**
 * Writes a new config file; refuses to overwrite one (flag `wx`), so two processes racing
 * on first run cannot clobber each other's secrets.
 * @returns false when the file appeared meanwhile.
 */
export async function writeFirstRunConfig(file: string, listen: string): Promise<boolean> {
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(file, firstRunConfigText(listen, generateSecret(), generateSecret()), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * The text of a first-run config: the offline `mock` provider (`mock-1`, the model of the
 * README's first request) and the usage and request_log extensions the console reads are on;
 * every provider kind and every built-in extension is a commented example.
 */
export function firstRunConfigText(listen: string, adminToken: string, defaultKey: string): string {
  return `# gw configuration, generated on first run. Reference: docs/configuration.md.
listen = "${listen}"
admin_token = "${adminToken}"   # for gw's admin routes, the console at /ui and the gw management client (GW_ADMIN_TOKEN)
data_dir = "data"               # relative to this file; holds the store

[keys.default]                  # gateway API keys, by name: clients send "Authorization: Bearer <key>"
key = "${defaultKey}"
# Per-key settings (docs/configuration.md "Virtual keys"); leave one out and the key is not limited by it:
# models = ["gpt-4o*", "claude-*"]     # what the key may call (* matches anything)
# requests_per_minute = 60             # with [extensions.rate_limit]
# budget = 20                          # USD, with [extensions.budget]
# budget_period = "monthly"            # daily | weekly | monthly | lifetime (UTC)
# expires_at = 2027-01-01
# tags = { team = "search" }
# max_parallel_requests = 4

# Offline and deterministic: answers with the last user message, so gw can be tried without
# a network (model "mock-1"). Remove it once real providers are set up.
[providers.mock]
models = ["mock-1"]

# [providers.openai]            # the section name doubles as the kind
# api_key = "\${OPENAI_API_KEY}" # \${VAR} is read from the environment at load
# models = ["gpt-4o", "gpt-4o-mini", "text-embedding-3-small"]

# [providers.anthropic]
# api_key = "\${ANTHROPIC_API_KEY}"
# models = ["claude-sonnet-4-5"]

# [providers.gemini]
# api_key = "\${GEMINI_API_KEY}"
# models = ["gemini-2.5-flash"]

# [providers.azure]
# api_key = "\${AZURE_OPENAI_API_KEY}"
# base_url = "https://my-resource.openai.azure.com"
# models = ["my-gpt-4o-deployment"]

# [providers.dashscope]         # Qwen; international region by default
# api_key = "\${DASHSCOPE_API_KEY}"
# models = ["qwen3-max"]

# [providers.zhipu]             # GLM
# api_key = "\${ZHIPU_API_KEY}"
# models = ["glm-4.6"]

# [providers.vllm]              # any OpenAI-compatible upstream: give base_url
# api_key = "none"
# base_url = "http://127.0.0.1:8000/v1"
# models = ["meta-llama/Llama-3.1-8B-Instruct"]

# [aliases]
# gpt4 = "gpt-4o"

# Prices: gw ships a price table for the openai, azure, anthropic, gemini, dashscope and zhipu
# kinds, so budgets and spend work without [pricing]; a section overrides the table, or
# prices a model it lacks (USD per million tokens):
# [pricing."my-model"]
# input_per_mtok = 2.5
# output_per_mtok = 10.0

# Extensions (docs/extensions.md): each runs when its section is present, hooks in the order
# of the sections. The console at /ui reads these two:
[extensions.usage]              # tokens and requests per key, model and hour: /v1/usage, the charts
[extensions.request_log]        # the last 10,000 requests (no bodies): /v1/requests, the Requests page

# [extensions.rate_limit]
# requests_per_minute = 60      # every key's limit unless the key sets its own
# tokens_per_minute = 100000
# [extensions.budget]
# default_budget = 10.0         # USD per key, at the bundled prices or [pricing]
# [extensions.cache]
# ttl_seconds = 300
# [extensions.logging]
# level = "info"
# [extensions.otel]             # traces and GenAI metrics over OTLP (docs/opentelemetry.md)
# endpoint = "http://127.0.0.1:4318"
# [extensions.alerts]           # webhooks on budgets, circuits, error rates, latency, key expiry
# [[extensions.alerts.webhooks]]
# name = "ops"
# url = "\${ALERTS_WEBHOOK_URL}"
# format = "slack"
# [extensions.recorder]         # every upstream exchange into a cassette, for replay in CI (docs/record-replay.md)
# path = "cassettes/session.jsonl"
# [extensions.guardrails]       # secrets and personal data kept out of prompts and answers (docs/guardrails.md)
# [extensions.guardrails.checks.secrets]
# type = "secrets"
# action = "mask"
`;
}
