import type { z } from 'zod';
import { ValidationError } from '#core';
import { checkTypeSchema, type CheckInput, type CheckType } from '#domain';
import type { assertion, ChecklyCheckBody, keyValue } from './check-body.ts';

export { checklyCheckBody, type ChecklyCheckBody } from './check-body.ts';

/** The path segment of POST /v1/checks/{type} and PUT /v1/checks/{type}/{id}, and the type it names. */
export const checkTypeByPath: Record<string, CheckType> = {
  api: 'API',
  url: 'URL',
  tcp: 'TCP',
  dns: 'DNS',
  heartbeat: 'HEARTBEAT',
  browser: 'BROWSER',
  multistep: 'MULTI_STEP',
  playwright: 'PLAYWRIGHT',
};

const SUITE_FIELDS = [
  'codeBundlePath',
  'browsers',
  'cacheHash',
  'playwrightVersion',
  'testCommand',
  'installCommand',
  'workingDir',
  'engine',
  'engineVersion',
] as const;

/** Collects every field Vigil cannot honour, so one 400 names them all. */
class Refusals {
  readonly fields: string[] = [];
  /** A value other than the field's unset forms (null, "", [], false, 0) is refused. */
  unset(path: string, value: unknown, why: string): void {
    const isUnset =
      value === undefined ||
      value === null ||
      value === '' ||
      value === false ||
      value === 0 ||
      (Array.isArray(value) && value.length === 0);
    if (!isUnset) this.fields.push(`${path}: ${why}`);
  }
  add(path: string, why: string): void {
    this.fields.push(`${path}: ${why}`);
  }
  throwIfAny(): void {
    if (this.fields.length > 0) throw new ValidationError(this.fields.join('; '));
  }
}

const blank = <T>(value: T | null | undefined): T | undefined =>
  value === null || value === undefined || (value as unknown) === '' ? undefined : value;
const list = <T>(value: T[] | null | undefined): T[] | undefined =>
  value === null || value === undefined || value.length === 0 ? undefined : value;

function assertions(items: z.output<typeof assertion>[] | null | undefined, path: string, refuse: Refusals) {
  return list(items)?.map((item, index) => {
    const at = `${path}[${index}]`;
    refuse.unset(`${at}.edit`, item.edit, "Checkly's editor state; Vigil keeps none");
    refuse.unset(`${at}.order`, item.order, 'Vigil keeps assertions in the order sent');
    refuse.unset(`${at}.arrayIndex`, item.arrayIndex, 'not supported by Vigil; use a JSONPath in property');
    refuse.unset(`${at}.arraySelector`, item.arraySelector, 'not supported by Vigil; use a JSONPath in property');
    refuse.unset(`${at}.regex`, item.regex, 'not supported by Vigil');
    return {
      source: item.source,
      property: item.property ?? '',
      comparison: item.comparison,
      target: item.target ?? '',
    };
  });
}

function keyValues(items: z.output<typeof keyValue>[] | null | undefined, path: string, refuse: Refusals) {
  return list(items)?.map((item, index) => {
    refuse.unset(`${path}[${index}].locked`, item.locked, 'Vigil does not lock headers or parameters');
    return { key: item.key, value: item.value };
  });
}

function definition(type: CheckType, body: ChecklyCheckBody, refuse: Refusals): Record<string, unknown> {
  const r = body.request;
  const hb = body.heartbeat;
  const heartbeatSet = hb && (hb.period || hb.periodUnit || hb.grace || hb.graceUnit);
  if (type !== 'DNS')
    for (const field of ['query', 'recordType', 'nameServer', 'protocol'] as const)
      refuse.unset(`request.${field}`, r?.[field], `only DNS checks have one, not ${type}`);
  if (type !== 'HEARTBEAT' && heartbeatSet) refuse.add('heartbeat', `only HEARTBEAT checks have one, not ${type}`);
  if (type === 'HEARTBEAT') {
    if (r && (r.url || r.hostname)) refuse.add('request', 'a HEARTBEAT check makes no request');
    if (!heartbeatSet) return {};
    return {
      heartbeat: {
        period: hb!.period ?? 0,
        ...(blank(hb!.periodUnit) ? { periodUnit: hb!.periodUnit } : {}),
        ...(hb!.grace !== null && hb!.grace !== undefined ? { grace: hb!.grace } : {}),
        ...(blank(hb!.graceUnit) ? { graceUnit: hb!.graceUnit } : {}),
      },
    };
  }
  if (type === 'BROWSER' || type === 'MULTI_STEP' || type === 'PLAYWRIGHT') {
    if (r && (r.url || r.hostname)) refuse.add('request', `a ${type} check runs its script, not a request`);
    return blank(body.script) ? { script: body.script } : {};
  }
  refuse.unset('script', body.script, `only script checks run one, not ${type}`);
  if (type === 'DNS') return dnsDefinition(body, refuse);
  if (!r || !(r.url || r.hostname)) return {};
  const common = { assertions: assertions(r.assertions, 'request.assertions', refuse) };
  if (type === 'TCP') {
    refuse.unset('request.url', r.url, 'a TCP check connects to hostname and port');
    return {
      request: {
        hostname: r.hostname,
        port: r.port,
        ...(blank(r.data) ? { data: r.data } : {}),
        ...(blank(r.ipFamily) ? { ipFamily: r.ipFamily } : {}),
        ...common,
      },
    };
  }
  refuse.unset('request.hostname', r.hostname, `a ${type} check requests a URL`);
  if (r.ipFamily && r.ipFamily !== 'IPv4') refuse.add('request.ipFamily', `${type} checks resolve as the runner does`);
  const shared = {
    url: r.url,
    ...(r.followRedirects !== null && r.followRedirects !== undefined ? { followRedirects: r.followRedirects } : {}),
    ...(r.skipSSL !== null && r.skipSSL !== undefined ? { skipSSL: r.skipSSL } : {}),
    ...common,
  };
  if (type === 'URL') {
    refuse.unset('request.body', r.body, 'a URL check sends no body');
    refuse.unset('request.headers', r.headers, 'a URL check sends no headers; use an API check');
    return { request: shared };
  }
  if (type !== 'API') {
    refuse.add('request', `${type} checks take Vigil's own request shape; use /v1`);
    return {};
  }
  const auth = r.basicAuth && (r.basicAuth.username || r.basicAuth.password) ? r.basicAuth : undefined;
  return {
    request: {
      ...shared,
      ...(blank(r.method) ? { method: r.method } : {}),
      ...(blank(r.body) ? { body: r.body } : {}),
      ...(blank(r.bodyType) ? { bodyType: r.bodyType } : {}),
      headers: keyValues(r.headers, 'request.headers', refuse),
      queryParameters: keyValues(r.queryParameters, 'request.queryParameters', refuse),
      ...(auth ? { basicAuth: auth } : {}),
    },
  };
}

/** A DNS check's request has Vigil's own shape already: Checkly's field names, checked by the domain. */
function dnsDefinition(body: ChecklyCheckBody, refuse: Refusals): Record<string, unknown> {
  const r = body.request;
  if (!r || !r.query) return {};
  for (const field of ['url', 'hostname', 'method', 'body', 'bodyType', 'data', 'ipFamily'] as const)
    refuse.unset(`request.${field}`, r[field], 'a DNS check sends a query, not a request');
  refuse.unset('request.headers', r.headers, 'a DNS check sends a query, not a request');
  refuse.unset('request.queryParameters', r.queryParameters, 'a DNS check sends a query, not a request');
  refuse.unset('request.basicAuth', r.basicAuth?.username || r.basicAuth?.password, 'a DNS check sends a query');
  refuse.unset('request.followRedirects', r.followRedirects, 'a DNS check follows no redirects');
  refuse.unset('request.skipSSL', r.skipSSL, 'a DNS check uses no TLS');
  return {
    request: {
      query: r.query,
      ...(blank(r.recordType) ? { recordType: r.recordType } : {}),
      ...(blank(r.nameServer) ? { nameServer: r.nameServer } : {}),
      ...(r.port ? { port: r.port } : {}),
      ...(blank(r.protocol) ? { protocol: r.protocol } : {}),
      assertions: assertions(r.assertions, 'request.assertions', refuse),
    },
  };
}

function retry(body: ChecklyCheckBody, refuse: Refusals) {
  const strategy = body.retryStrategy;
  if (!strategy || strategy.type === 'NO_RETRIES') return undefined;
  refuse.unset('retryStrategy.onlyOn', strategy.onlyOn, 'Vigil retries on every failure');
  if (!['FIXED', 'LINEAR', 'EXPONENTIAL'].includes(strategy.type)) {
    refuse.add('retryStrategy.type', `${strategy.type} is not supported; use FIXED, LINEAR, EXPONENTIAL or NO_RETRIES`);
    return undefined;
  }
  return {
    type: strategy.type,
    ...(strategy.maxRetries != null ? { maxRetries: strategy.maxRetries } : {}),
    ...(strategy.baseBackoffSeconds != null ? { baseBackoffSeconds: strategy.baseBackoffSeconds } : {}),
    ...(strategy.maxDurationSeconds != null ? { maxDurationSeconds: strategy.maxDurationSeconds } : {}),
    ...(strategy.sameRegion != null ? { sameRegion: strategy.sameRegion } : {}),
  };
}

function alerts(body: ChecklyCheckBody, refuse: Refusals) {
  const settings = body.alertSettings;
  if (!settings) return undefined;
  refuse.unset(
    'alertSettings.parallelRunFailureThreshold.enabled',
    settings.parallelRunFailureThreshold?.enabled,
    'Vigil runs no parallel checks',
  );
  refuse.unset('alertSettings.sslCertificates.enabled', settings.sslCertificates?.enabled, 'use sslCheckDomain');
  // useGlobalAlertSettings: the account's settings apply, which Vigil says with null.
  if (body.useGlobalAlertSettings) return null;
  return {
    ...(blank(settings.escalationType) ? { escalationType: settings.escalationType } : {}),
    ...(settings.runBasedEscalation?.failedRunThreshold
      ? { runBasedEscalation: { failedRunThreshold: settings.runBasedEscalation.failedRunThreshold } }
      : {}),
    ...(settings.timeBasedEscalation?.minutesFailingThreshold
      ? { timeBasedEscalation: { minutesFailingThreshold: settings.timeBasedEscalation.minutesFailingThreshold } }
      : {}),
    ...(settings.reminders && (settings.reminders.amount || settings.reminders.interval)
      ? {
          reminders: {
            ...(settings.reminders.amount != null ? { amount: settings.reminders.amount } : {}),
            ...(settings.reminders.interval ? { interval: settings.reminders.interval } : {}),
          },
        }
      : {}),
  };
}

/**
 * Translates a Checkly check body into Vigil's CheckInput. Checkly's unset forms (null, "", [],
 * zero values) stay unset; every field Vigil cannot honour is named in one 400, never dropped.
 */
export function toVigilCheck(body: ChecklyCheckBody, type: CheckType, groupId: string | null): CheckInput {
  const refuse = new Refusals();
  if (body.checkType && body.checkType !== type) refuse.add('checkType', `the path says ${type}`);
  if (!checkTypeSchema.safeParse(type).success) refuse.add('checkType', `${type} is not a Vigil check type`);
  refuse.unset('description', body.description, 'not supported by Vigil yet');
  refuse.unset('frequencyOffset', body.frequencyOffset, 'Vigil spreads runs itself');
  refuse.unset('shouldFail', body.shouldFail, 'not supported by Vigil');
  refuse.unset('runParallel', body.runParallel, 'Vigil runs locations one after another');
  refuse.unset('environmentVariables', body.environmentVariables, 'Vigil has account and group variables only');
  refuse.unset('sslCheck', body.sslCheck, 'use sslCheckDomain');
  refuse.unset('doubleCheck', body.doubleCheck, 'use retryStrategy');
  refuse.unset('setupSnippetId', body.setupSnippetId, 'Vigil does not support snippets');
  refuse.unset('tearDownSnippetId', body.tearDownSnippetId, 'Vigil does not support snippets');
  refuse.unset('localSetupScript', body.localSetupScript, 'not supported by Vigil');
  refuse.unset('localTearDownScript', body.localTearDownScript, 'not supported by Vigil');
  refuse.unset('groupOrder', body.groupOrder, 'not supported by Vigil');
  refuse.unset('triggerIncident', body.triggerIncident, 'Vigil has no incidents');
  if (type !== 'PLAYWRIGHT')
    for (const field of SUITE_FIELDS) refuse.unset(field, body[field], `only PLAYWRIGHT checks have one, not ${type}`);
  (body.alertChannelSubscriptions ?? []).forEach((subscription, index) => {
    // Vigil cannot tell an inactive subscription from a removed one when it reads them back.
    if (subscription.activated === false)
      refuse.add(`alertChannelSubscriptions[${index}].activated`, 'false is not kept; leave the channel out instead');
  });
  const settings = alerts(body, refuse);
  const input = {
    name: body.name,
    checkType: type,
    ...(body.activated != null ? { activated: body.activated } : {}),
    ...(body.muted != null ? { muted: body.muted } : {}),
    ...(body.frequency != null ? { frequency: body.frequency } : {}),
    ...(list(body.tags) ? { tags: body.tags } : {}),
    // Vigil names a check's private locations by slug among its locations (checked there: an unknown slug is a 400).
    ...(list(body.locations) || list(body.privateLocations)
      ? { locations: [...(body.locations ?? []), ...(body.privateLocations ?? [])] }
      : {}),
    groupId,
    sslCheckDomain: blank(body.sslCheckDomain) ?? null,
    runtimeId: blank(body.runtimeId) ?? null,
    ...(settings !== undefined ? { alertSettings: settings } : {}),
    ...(body.degradedResponseTime != null ? { degradedResponseTime: body.degradedResponseTime } : {}),
    ...(body.maxResponseTime != null ? { maxResponseTime: body.maxResponseTime } : {}),
    ...definition(type, body, refuse),
  } as Record<string, unknown>;
  if (type !== 'HEARTBEAT') {
    const strategy = retry(body, refuse);
    if (strategy) input.retryStrategy = strategy;
  } else
    refuse.unset(
      'retryStrategy',
      body.retryStrategy && body.retryStrategy.type !== 'NO_RETRIES' ? body.retryStrategy.type : null,
      'a HEARTBEAT check is not retried',
    );
  refuse.throwIfAny();
  return input as CheckInput;
}
