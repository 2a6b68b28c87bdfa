/**
 * `[extensions.alerts]` sections for the alerts tests: webhooks by name and URL, checked every
 * 100 ms, and an error-rate rule by model that alerts from the second failed request.
 */

/** One `[[extensions.alerts.webhooks]]`: its name, URL and any more lines (`format = "slack"`…). */
export interface WebhookLines {
  name: string;
  url: string;
  more?: string;
}

/** The section with `webhooks` and `rules` (TOML), checked every `check_interval_seconds` (0.1). */
export function alertsSection(webhooks: readonly WebhookLines[], rules: string, checkSeconds: number | undefined = 0.1): string {
  const head = checkSeconds === undefined ? '' : `check_interval_seconds = ${checkSeconds}\n`;
  const hooks = webhooks.map((w) => `[[extensions.alerts.webhooks]]\nname = "${w.name}"\nurl = "${w.url}"\n${w.more ?? ''}`).join('\n');
  return `[extensions.alerts]\n${head}${hooks}\n${rules}`;
}

/** An error-rate rule by model: 50% of at least 2 requests; `extra` lines (`include_4xx = true`). */
export function errorRateRule(extra = ''): string {
  return `[[extensions.alerts.rules]]\ntype = "error_rate"\nscope = "model"\nthreshold_percent = 50\nmin_requests = 2\n${extra}`;
}
