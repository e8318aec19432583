import { validateHeaderName } from 'node:http';
import { SERVICE_HEADER_NAMES } from './headers.ts';
import type { RenderOptions } from './helpers.ts';
import { bodyContext, compileTemplate, templateVariables } from './template.ts';
import { mergedVariables, type TemplateVariables } from './variables.ts';

export const webhookMethods = ['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE'] as const;
export type WebhookMethod = (typeof webhookMethods)[number];

export interface KeyValue {
  key: string;
  value: string;
}

/** The templated part of a webhook channel's config (the domain's `config`, structurally). */
export interface WebhookChannelConfig {
  url: string;
  method?: WebhookMethod;
  headers?: readonly KeyValue[];
  queryParameters?: readonly KeyValue[];
  template?: string | null;
}

export interface RenderedWebhook {
  url: string;
  method: WebhookMethod;
  headers: Record<string, string>;
  body: string;
  warnings: string[];
}

/**
 * The last body rendered as canonical JSON. A delivery renders and then sends in the same turn of
 * the event loop, so the send's content-type check finds its body here instead of parsing it a
 * second time; only canonicalJson's output (valid JSON by construction) is ever kept.
 */
let lastCanonical: string | undefined;

/** Whether a body is JSON: it then goes out as application/json. */
export function isJsonBody(body: string): boolean {
  if (body === lastCanonical) return true;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** The compact form a receiver gets by re-serialising the parsed body, so both sides sign the same bytes. */
export function canonicalJson(body: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(body));
  } catch {
    return undefined;
  }
}

// Control characters cannot go into a header; CR and LF would split it (header injection).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HEADER_CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/g;

function withQuery(url: string, pairs: string[]): string {
  if (pairs.length === 0) return url;
  const hash = url.indexOf('#');
  const base = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : url.slice(hash);
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${pairs.join('&')}${fragment}`;
}

/** Verdicts by URL: a URL that is not a template renders the same for every alert. */
const httpUrls = new Map<string, boolean>();

function isHttpUrl(value: string): boolean {
  let verdict = httpUrls.get(value);
  if (verdict === undefined) {
    try {
      verdict = ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      verdict = false;
    }
    // Rendered URLs with per-alert values never repeat: keep the map bounded.
    if (httpUrls.size >= 2_000) httpUrls.clear();
    httpUrls.set(value, verdict);
  }
  return verdict;
}

/**
 * Renders a webhook channel for one alert: the URL (with the query parameters appended), the
 * header values and the body. A template that is not valid throws ValidationError naming the
 * field; softer problems come back as warnings.
 *
 * Query values are rendered in the query context (`{{X}}` is URI-component encoded) and appended
 * as they are, so an encoded value is not encoded a second time; keys are encoded here.
 * With no body template, the body is the event variables as JSON. A body that is valid JSON is
 * sent in its canonical compact form (JSON.stringify(JSON.parse(body))).
 */
export function renderTemplates(
  config: WebhookChannelConfig,
  variables: TemplateVariables,
  options: RenderOptions = {},
): RenderedWebhook {
  const render = { ...options, now: options.now ?? new Date() };
  const values = mergedVariables(variables);
  const warnings = new Set<string>();
  const secrets = new Set(variables.secretKeys ?? []);
  const method = config.method ?? 'POST';

  const noteReferences = (source: string) => {
    for (const { name } of templateVariables(source)) {
      if (name in values) continue;
      warnings.add(
        secrets.has(name)
          ? `${name} is a secret; secrets are not available to templates`
          : `${name} is not a known variable; it renders as empty`,
      );
    }
  };

  noteReferences(config.url);
  const pairs = (config.queryParameters ?? []).map(({ key, value }, index) => {
    noteReferences(value);
    const rendered = renderText(value, 'query', `config.queryParameters[${index}].value`, values, render);
    return `${encodeURIComponent(key)}=${rendered}`;
  });
  const url = withQuery(renderText(config.url, 'url', 'config.url', values, render), pairs);
  if (!isHttpUrl(url)) {
    // The usual cause: {{BASE_URL}} is URI-encoded in a URL ("https%3A%2F%2F…"); {{{BASE_URL}}} is not.
    const hint = /^\s*\{\{[^{]/.test(config.url) ? '; to insert a variable that holds a URL, use {{{NAME}}}' : '';
    warnings.add(`the rendered URL is not a valid http or https URL: ${url}${hint}`);
  }

  const headers: Record<string, string> = {};
  (config.headers ?? []).forEach(({ key, value }, index) => {
    const name = key.trim();
    try {
      validateHeaderName(name);
    } catch {
      warnings.add(`header name ${JSON.stringify(name)} is not a valid HTTP header name; it is not sent`);
      return;
    }
    if (SERVICE_HEADER_NAMES.has(name.toLowerCase())) {
      warnings.add(`header ${name} is set by the service; the configured value is not sent`);
      return;
    }
    noteReferences(value);
    const rendered = renderText(value, 'header', `config.headers[${index}].value`, values, render);
    const stripped = rendered.replace(HEADER_CONTROL, '');
    // Surrounding whitespace is not part of a header value on the wire.
    const cleaned = stripped.trim();
    if (stripped !== rendered)
      warnings.add(`header ${name}: line breaks and control characters were removed from the value`);
    const existing = Object.keys(headers).find((other) => other.toLowerCase() === name.toLowerCase());
    if (existing !== undefined) {
      warnings.add(`header ${name} is set more than once; the last value is sent`);
      delete headers[existing];
    }
    headers[name] = cleaned;
  });

  const body = renderBody(config.template, variables, values, render, warnings, noteReferences);
  if ((method === 'GET' || method === 'HEAD') && config.template?.trim())
    warnings.add(`${method} requests are sent without a body`);
  return { url, method, headers, body, warnings: [...warnings] };
}

/**
 * The default body by event object: one alert's variables are shared by its deliveries to every
 * channel, so its JSON is built once, not once per channel. Variables are never changed once
 * built; the WeakMap lets an alert's entry go with it.
 */
const eventJsonCache = new WeakMap<object, string>();

export function eventJson(event: TemplateVariables['event']): string {
  if (typeof event !== 'object' || event === null) return JSON.stringify(event);
  let json = eventJsonCache.get(event);
  if (json === undefined) eventJsonCache.set(event, (json = JSON.stringify(event)));
  return json;
}

/**
 * A URL, query or header value rendered. Text with no `{{` has no expression to evaluate (and no
 * `\\{{` escape) and renders as itself, so the render is skipped; it is still compiled (cached) so
 * its limits are checked as for any template.
 */
function renderText(
  source: string,
  context: 'url' | 'query' | 'header',
  field: string,
  values: Readonly<Record<string, unknown>>,
  options: RenderOptions,
): string {
  const compiled = compileTemplate(source, context, field);
  return source.includes('{{') ? compiled(values, options) : source;
}

function renderBody(
  template: string | null | undefined,
  variables: TemplateVariables,
  values: Readonly<Record<string, unknown>>,
  options: RenderOptions,
  warnings: Set<string>,
  noteReferences: (source: string) => void,
): string {
  if (!template?.trim()) return (lastCanonical = eventJson(variables.event));
  noteReferences(template);
  const context = bodyContext(template);
  const rendered = compileTemplate(template, context, 'config.template')(values, options);
  const canonical = canonicalJson(rendered);
  if (canonical !== undefined) return (lastCanonical = canonical);
  if (context === 'body-json') {
    let reason = '';
    try {
      JSON.parse(rendered);
    } catch (error) {
      reason = `: ${(error as Error).message}`;
    }
    warnings.add(`the body template looks like JSON but does not render valid JSON${reason}; it is sent as text`);
  }
  return rendered;
}
