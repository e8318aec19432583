export {
  compileTemplate,
  validateTemplate,
  templateVariables,
  bodyContext,
  TEMPLATE_MAX_BYTES,
  type TemplateContext,
  type TemplateValidation,
  type CompiledTemplate,
} from './template.ts';
export type { TemplateIssue, VariableReference } from './ast.ts';
export { DEFAULT_REGION, HELPER_NAMES, type RenderOptions } from './helpers.ts';
export { formatMoment, parseRelative, DEFAULT_MOMENT_FORMAT } from './moment.ts';
export {
  alertEventVariablesSchema,
  alertTypes,
  locationAlertTypes,
  type LocationAlertType,
  mergeVariables,
  EVENT_VARIABLE_NAMES,
  type AlertEventVariables,
  type AlertEventVariablesInput,
  type AlertType,
  type TemplateVariables,
} from './variables.ts';
export {
  renderTemplates,
  canonicalJson,
  isJsonBody,
  webhookMethods,
  type WebhookChannelConfig,
  type WebhookMethod,
  type KeyValue,
  type RenderedWebhook,
} from './render.ts';
export {
  signatureHeaders,
  standardWebhooksSignature,
  standardWebhooksKey,
  webhookSecretProblem,
  STANDARD_WEBHOOKS_PREFIX,
  type SignatureInput,
} from './signing.ts';
export { checkAddress, type AddressVerdict } from './address-policy.ts';
export {
  deliverWebhook,
  prepareRequest,
  RESPONSE_BODY_LIMIT,
  type WebhookRequest,
  type DeliveryOptions,
  type DeliveryResult,
  type DeliveryOutcome,
  type Resolver,
} from './deliver.ts';
export { SERVICE_HEADER_NAMES } from './headers.ts';
export { nextAttemptAt, maxAttempts, shouldRetry, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.ts';
export { TEMPLATE_MAX_DEPTH, TEMPLATE_MAX_EXPRESSIONS, TEMPLATE_RENDER_BUDGET_MS, limitIssue } from './limits.ts';
export {
  createTemplateSandbox,
  TEMPLATE_SANDBOX_TIMEOUT_MS,
  type TemplateSandbox,
  type TemplateFieldIssue,
} from './sandbox.ts';
export { metadataRange } from './metadata.ts';
