// The OpenAPI document's `webhooks` section: every event the shop sends to the endpoints staff
// register (Standard Webhooks, decision 102), with its payload. The event list is the code's own.
import { LICENCE_PLANS } from "~/lib/plans";
import { TEST_EVENT, WEBHOOK_EVENT_LABELS, WEBHOOK_EVENTS, type WebhookEvent } from "~/lib/webhooks";

const nullableString = { type: ["string", "null"] };
const dateTime = { type: ["string", "null"], format: "date-time" };

const order = {
  type: "object",
  required: ["id", "source", "reference"],
  properties: {
    id: { type: "string", description: 'The order as the back office names it: "shopify:<id>" or "crypto:<number>".' },
    source: { type: "string", enum: ["shopify", "crypto"] },
    reference: { type: "string" },
  },
};

const licence = {
  type: "object",
  required: ["id", "key", "product", "plan", "ownerEmail", "activatedAt", "expiresAt", "boundToPc"],
  properties: {
    id: { type: "integer" },
    key: { type: "string" },
    product: { type: "string" },
    plan: { type: "string", enum: LICENCE_PLANS },
    ownerEmail: { type: "string" },
    orderId: nullableString,
    activatedAt: dateTime,
    expiresAt: { ...dateTime, description: "Null for lifetime plans, and for timed plans until activation." },
    boundToPc: { type: "boolean" },
  },
};

const licenceEvent = (extra: Record<string, unknown> = {}, required: string[] = []) => ({
  type: "object",
  required: ["licence", ...required],
  properties: { licence: { $ref: "#/components/schemas/WebhookLicence" }, ...extra },
});

const dispute = {
  type: "object",
  required: ["dispute"],
  properties: {
    dispute: {
      type: "object",
      required: ["id", "order", "status", "outcome"],
      properties: {
        id: { type: "string" },
        order: { $ref: "#/components/schemas/WebhookOrderRef" },
        type: { type: "string" },
        reason: nullableString,
        status: { type: "string", description: "Shopify's dispute status." },
        outcome: { type: "string", enum: ["open", "won", "lost"] },
        amount: nullableString,
        currency: nullableString,
      },
    },
  },
};

const revoked = { type: "array", items: { type: "string" }, description: "The keys it revoked (their licences answer REVOKED)." };

const DATA: Record<WebhookEvent, { description: string; schema: Record<string, unknown> }> = {
  "order.paid": {
    description: "A card (Shopify or the demo checkout) or crypto order was paid. Sent once per order.",
    schema: {
      type: "object",
      required: ["order"],
      properties: {
        order: {
          allOf: [
            { $ref: "#/components/schemas/WebhookOrderRef" },
            {
              type: "object",
              properties: {
                name: { type: "string" },
                email: { type: "string" },
                currency: { type: "string" },
                total: { ...nullableString, description: "Decimal, in the order's currency." },
                lines: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: {
                      title: { type: "string" },
                      variantTitle: { type: "string" },
                      quantity: { type: "integer" },
                      price: { type: "string" },
                    },
                  },
                },
                crypto: { type: "object", description: "Crypto orders only: the coin and the transaction that paid." },
              },
            },
          ],
        },
      },
    },
  },
  "order.refunded": {
    description: "A refund was applied to an order. Sent once per refund.",
    schema: {
      type: "object",
      required: ["order", "refund", "keysRevoked"],
      properties: {
        order: { $ref: "#/components/schemas/WebhookOrderRef" },
        refund: { type: "object", properties: { id: { type: "string" } } },
        keysRevoked: revoked,
      },
    },
  },
  "order.cancelled": {
    description: "An order was cancelled. Sent once per order.",
    schema: {
      type: "object",
      required: ["order", "keysRevoked"],
      properties: { order: { $ref: "#/components/schemas/WebhookOrderRef" }, keysRevoked: revoked },
    },
  },
  "licence.created": { description: "A sold key's licence was created.", schema: licenceEvent() },
  "licence.activated": { description: "A licence was activated: its first valid check bound it to a PC.", schema: licenceEvent() },
  "licence.extended": {
    description: "A payment renewed or upgraded a licence, keeping its key.",
    schema: licenceEvent(
      {
        renewal: {
          type: "object",
          properties: {
            kind: { type: "string", enum: ["renewal", "upgrade"] },
            fromPlan: { type: "string" },
            toPlan: { type: "string" },
            method: { type: "string" },
            order: nullableString,
            auto: { type: "boolean" },
          },
        },
      },
      ["renewal"],
    ),
  },
  "licence.suspended": {
    description: "A payment dispute suspended an order's licence: it answers SUSPENDED until the dispute ends.",
    schema: licenceEvent({ reason: { type: "string", enum: ["dispute"] }, dispute: { type: "string" } }, ["reason"]),
  },
  "licence.revoked": {
    description: "A refund, a cancellation or a lost dispute revoked a key.",
    schema: {
      type: "object",
      required: ["licence", "order", "reason"],
      properties: {
        licence: { type: "object", properties: { key: { type: "string" }, variantTitle: { type: "string" } } },
        order: { $ref: "#/components/schemas/WebhookOrderRef" },
        reason: { type: "string", enum: ["refunded", "cancelled", "dispute-lost"] },
      },
    },
  },
  "licence.banned": {
    description: "Staff banned a key.",
    schema: licenceEvent({ reason: { type: "string" } }, ["reason"]),
  },
  "licence.expired": {
    description: "A licence's time ran out (noticed by the shop's scheduled sweep, within minutes).",
    schema: licenceEvent(),
  },
  "dispute.opened": { description: "A payment dispute was opened on an order.", schema: dispute },
  "dispute.closed": { description: "A payment dispute ended, won or lost.", schema: dispute },
  "review.posted": {
    description: "A verified buyer posted or edited a review.",
    schema: {
      type: "object",
      required: ["review", "edited"],
      properties: {
        review: {
          type: "object",
          properties: {
            id: { type: "integer" },
            product: { type: "object", properties: { id: { type: "string" }, handle: { type: "string" }, title: { type: "string" } } },
            author: { type: "string" },
            rating: { type: "integer", minimum: 1, maximum: 5 },
            body: { type: "string" },
          },
        },
        edited: { type: "boolean" },
      },
    },
  },
  "affiliate.commission_released": {
    description: "An affiliate commission's hold ended: the money became available to the affiliate.",
    schema: {
      type: "object",
      required: ["commission"],
      properties: {
        commission: {
          type: "object",
          properties: {
            id: { type: "integer" },
            affiliateId: { type: "string" },
            amountCents: { type: "integer", description: "What is left of the commission after any voids." },
            order: nullableString,
            releasedAt: { type: "string", format: "date-time" },
          },
        },
      },
    },
  },
};

const HEADERS = {
  "webhook-id": {
    required: true,
    description: "The message's id: the same on every retry and redelivery of one message, so receivers can drop repeats.",
    schema: { type: "string" },
  },
  "webhook-timestamp": {
    required: true,
    description: "When this attempt was sent, in seconds since the epoch. Refuse it when more than 5 minutes from your clock.",
    schema: { type: "string" },
  },
  "webhook-signature": {
    required: true,
    description:
      "Space-separated `v1,<base64>` signatures: HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes base64-encoded after `whsec_` in the endpoint's secret. Two while a rotated secret's old one still counts (a day); accept the message if any matches.",
    schema: { type: "string" },
  },
};

function operation(type: string, label: string, description: string, data: Record<string, unknown>) {
  return {
    post: {
      operationId: type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase()),
      summary: label,
      description: `${description} Delivered from the shop's job queue, retried for about a day until your endpoint answers 2xx within 10 seconds; no order is promised.`,
      parameters: Object.entries(HEADERS).map(([name, header]) => ({ name, in: "header", ...header })),
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["type", "timestamp", "data"],
              properties: {
                type: { type: "string", const: type },
                timestamp: { type: "string", format: "date-time", description: "When the event happened." },
                data,
              },
            },
          },
        },
      },
      responses: { "2XX": { description: "Received. Anything else (or no answer within 10 s) is retried." } },
    },
  };
}

/** The `webhooks` section: one entry per event, and the test event the Webhooks page sends. */
export function webhookOperations() {
  return {
    ...Object.fromEntries(
      WEBHOOK_EVENTS.map((type) => [type, operation(type, WEBHOOK_EVENT_LABELS[type], DATA[type].description, DATA[type].schema)]),
    ),
    [TEST_EVENT]: operation(TEST_EVENT, "Test event", "Sent by Send test event on the Webhooks page, to that endpoint only.", {
      type: "object",
      properties: { endpointId: { type: "string" }, message: { type: "string" } },
    }),
  };
}

/** Schemas the webhook payloads share. */
export const WEBHOOK_SCHEMAS = { WebhookOrderRef: order, WebhookLicence: licence };
