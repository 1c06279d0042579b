export {
  type HttpWebhookTransportOptions,
  type LookupFn,
  makeHttpWebhookTransport,
  MAX_RESPONSE_BODY_BYTES,
  WEBHOOK_USER_AGENT,
  webhookHeaders
} from "./http-webhook-transport.js"
export {
  type AddressClass,
  addressRefusal,
  ALLOW_PRIVATE_HINT,
  classifyAddress,
  hostnameRefusal,
  inspectTarget,
  resolvedRefusal,
  type WebhookTarget
} from "./target-guard.js"
