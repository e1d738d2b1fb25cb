// Webhooks out, as staff set them up: the events an endpoint may receive, and the forms of the
// Webhooks page, checked alike in the browser and on the server.
import * as v from "valibot";

/** Every event the shop sends, in the order the page lists them. */
export const WEBHOOK_EVENTS = [
  "order.paid",
  "order.refunded",
  "order.cancelled",
  "licence.created",
  "licence.activated",
  "licence.extended",
  "licence.suspended",
  "licence.revoked",
  "licence.banned",
  "licence.expired",
  "dispute.opened",
  "dispute.closed",
  "review.posted",
  "affiliate.commission_released",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** What the Send test event button sends: to one endpoint, whatever events it chose. */
export const TEST_EVENT = "webhook.test";

export const WEBHOOK_EVENT_LABELS: Record<WebhookEvent, string> = {
  "order.paid": "Order paid",
  "order.refunded": "Order refunded",
  "order.cancelled": "Order cancelled",
  "licence.created": "Licence created",
  "licence.activated": "Licence activated",
  "licence.extended": "Licence extended",
  "licence.suspended": "Licence suspended",
  "licence.revoked": "Licence revoked",
  "licence.banned": "Licence banned",
  "licence.expired": "Licence expired",
  "dispute.opened": "Dispute opened",
  "dispute.closed": "Dispute closed",
  "review.posted": "Review posted",
  "affiliate.commission_released": "Affiliate commission released",
};

/** The form field of one event's checkbox. */
export const eventField = (event: WebhookEvent) => `event:${event}`;

const endpointId = v.pipe(v.string(), v.regex(/^ep_[A-Za-z0-9]{1,40}$/, "Unknown endpoint"));
const messageId = v.pipe(v.string(), v.regex(/^msg_[A-Za-z0-9]{1,40}$/, "Unknown message"));

// The event checkboxes travel as fields of their own (`event:order.paid=on`), beside the others.
const registration = v.looseObject({
  intent: v.literal("create"),
  url: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty("Enter the endpoint's URL"),
    v.maxLength(500, "The URL is too long (500 characters at most)"),
    v.url("Enter a full URL, e.g. https://hooks.example.com/shop"),
  ),
  description: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200, "The description is too long (200 characters at most)")), ""),
  // The checkboxes' group: present so a refusal can name it.
  events: v.optional(v.string()),
});

const chosen = (form: Record<string, unknown>) => WEBHOOK_EVENTS.filter((event) => form[eventField(event)] === "on");

export const webhookActionSchema = v.pipe(
  v.variant(
    "intent",
    [
      registration,
      v.object({ intent: v.picklist(["rotate", "disable", "enable", "delete", "reveal", "test"]), endpointId }),
      v.object({ intent: v.literal("redeliver"), endpointId, messageId }),
    ],
    "Unknown request",
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed || dataset.value.intent !== "create" || chosen(dataset.value).length > 0) return;
    addIssue({
      message: "Choose at least one event",
      path: [{ type: "object", origin: "value", input: dataset.value, key: "events", value: dataset.value.events }],
    });
  }),
  v.transform((form) =>
    form.intent === "create" ? { intent: form.intent, url: form.url, description: form.description, events: chosen(form) } : form,
  ),
);
