// Reading a Shopify webhook body. Shopify signs the body only, so the body alone says what it is
// (an order, a refund or a dispute, by its shape and the Admin API id it names) and what happened to the
// order: paid, cancelled, its refunds, its lines (decision 043). Parsing only: nothing is written.
import * as v from "valibot";
import { REFERRAL_ATTRIBUTE } from "~/lib/affiliates";
import { RENEWAL_ATTRIBUTE } from "~/lib/renewals";
import { variantLabel } from "~/lib/plans";
import { fail, ok, type Result } from "~/lib/result";
import { lineVariant, type Order } from "./incoming-order.server";
import type { DisputeBody } from "../disputes/disputes.server";
import type { RefundedLine } from "./refunds.server";

const id = v.pipe(
  v.union([v.pipe(v.number(), v.integer(), v.minValue(1)), v.pipe(v.string(), v.regex(/^\d{1,20}$/))]),
  v.transform(String),
);
const money = v.pipe(v.union([v.string(), v.number()]), v.transform(String), v.regex(/^\d+(\.\d+)?$/, "Invalid amount"));
const maybeText = v.optional(v.nullable(v.string()));

const lineItemSchema = v.object({
  id,
  variant_id: v.optional(v.nullable(v.union([v.number(), v.string()]))),
  quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)),
  title: v.pipe(v.string(), v.maxLength(500)),
  variant_title: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
  price: money,
  // Everything the line's discounts took off it (a draft order's applied discount, a code's share).
  total_discount: v.optional(v.nullable(money)),
});

const refundLinesSchema = v.optional(
  v.array(v.object({ line_item_id: id, quantity: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000)) })),
  [],
);

const refundSchema = v.object({ id, order_id: id, refund_line_items: refundLinesSchema });

const countryCode = v.optional(v.nullable(v.object({ country_code: v.optional(v.nullable(v.string())) })));
const shortText = (max: number) => v.optional(v.nullable(v.pipe(v.string(), v.maxLength(max))));

// A dispute as Shopify's disputes/create and disputes/update bodies carry it (the REST Admin API's
// Dispute resource): the order, its type (inquiry, chargeback), reason, status and evidence deadline.
const disputeSchema = v.object({
  id,
  order_id: id,
  type: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(40)))),
  amount: v.optional(v.nullable(money)),
  currency: shortText(3),
  reason: shortText(60),
  status: v.pipe(v.string(), v.minLength(1), v.maxLength(40)),
  evidence_due_by: shortText(40),
  initiated_at: shortText(40),
});

const orderSchema = v.object({
  id,
  name: v.optional(v.string()),
  email: maybeText,
  contact_email: maybeText,
  customer: v.optional(v.nullable(v.object({ email: maybeText }))),
  financial_status: v.optional(v.nullable(v.string())),
  currency: v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, "Invalid currency")),
  total_price: v.optional(money),
  cancelled_at: v.optional(v.nullable(v.string())),
  updated_at: v.optional(v.nullable(v.string())),
  cart_token: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200)))),
  line_items: v.pipe(v.array(lineItemSchema), v.maxLength(250)),
  refunds: v.optional(v.array(v.object({ id, refund_line_items: refundLinesSchema })), []),
  // The cart's attributes (the referral travels as one) and the discount codes the buyer used.
  note_attributes: v.optional(
    v.nullable(v.array(v.object({ name: v.string(), value: v.optional(v.nullable(v.union([v.string(), v.number()]))) }))),
    [],
  ),
  discount_codes: v.optional(v.nullable(v.array(v.object({ code: v.string() }))), []),
  // Where the buyer paid from: what the order's risk is judged on (decision 093).
  billing_address: countryCode,
  shipping_address: countryCode,
  browser_ip: shortText(64),
  client_details: v.optional(v.nullable(v.object({ browser_ip: shortText(64) }))),
});

/** Financial states of an order whose payment was captured (a refund starts from a payment). */
const PAID_STATES = ["paid", "partially_refunded", "refunded"];

function parse<T extends v.GenericSchema>(schema: T, json: unknown): Result<v.InferOutput<T>> {
  const result = v.safeParse(schema, json);
  if (result.success) return ok(result.output);
  const issue = result.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join(".") ?? "payload";
  return fail("invalid", `${path}: ${issue.message}`);
}

/**
 * The buyer's address as the order gives it, never refused for its form: Shopify checked it, and
 * a paid order gets its keys whatever its address looks like (mail that cannot be delivered flags
 * the order for staff instead). "" when the order names none.
 */
function buyerAddress(raw: v.InferOutput<typeof orderSchema>): string {
  const given = [raw.email, raw.contact_email, raw.customer?.email].map((e) => e?.trim() ?? "").find((e) => e !== "");
  return (given ?? "").toLowerCase().slice(0, 320);
}

/**
 * The affiliate code an order was referred by: the cart's referral attribute, else the first
 * discount code the buyer used (an affiliate's code typed at Shopify's checkout). Null for none.
 */
function referralOf(raw: v.InferOutput<typeof orderSchema>): string | null {
  const attribute = raw.note_attributes?.find((a) => a.name === REFERRAL_ATTRIBUTE)?.value;
  const code = String(attribute ?? raw.discount_codes?.[0]?.code ?? "").trim();
  return code === "" ? null : code.slice(0, 64);
}

/** The licence the cart named for the payment to renew (decision 090): a positive id, else null. */
function renewsLicenceOf(raw: v.InferOutput<typeof orderSchema>): number | null {
  const value = String(raw.note_attributes?.find((a) => a.name === RENEWAL_ATTRIBUTE)?.value ?? "").trim();
  const id = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

function toOrder(raw: v.InferOutput<typeof orderSchema>): Order {
  const updatedAt = raw.updated_at ? Date.parse(raw.updated_at) : Number.NaN;
  return {
    id: raw.id,
    name: raw.name ?? `#${raw.id}`,
    email: buyerAddress(raw),
    currency: raw.currency,
    financialStatus: raw.financial_status ?? null,
    totalPrice: raw.total_price ?? null,
    paid: PAID_STATES.includes(raw.financial_status ?? ""),
    cancelled: Boolean(raw.cancelled_at),
    updatedAt: Number.isFinite(updatedAt) ? updatedAt : 0,
    cartToken: raw.cart_token || null,
    referral: referralOf(raw),
    renewsLicence: renewsLicenceOf(raw),
    country: (raw.billing_address?.country_code || raw.shipping_address?.country_code || "").toUpperCase().slice(0, 2) || null,
    browserIp: raw.browser_ip || raw.client_details?.browser_ip || null,
    lines: raw.line_items.map((line) => ({
      id: line.id,
      variantId: lineVariant(line.variant_id),
      quantity: line.quantity,
      title: line.title,
      variantTitle: variantLabel(line.variant_title || "Default Title"),
      price: line.price,
      ...(line.total_discount && Number(line.total_discount) > 0 ? { discount: line.total_discount } : {}),
    })),
    refunds: raw.refunds.map((refund) => ({ id: refund.id, lines: refundLines(refund.refund_line_items) })),
  };
}

const refundLines = (lines: v.InferOutput<typeof refundLinesSchema>) =>
  lines.map((l) => ({ lineId: l.line_item_id, quantity: l.quantity }));

/** What a body names itself in Shopify's Admin API, where it says (every webhook body does): "Order", "Refund"… */
function kindOf(body: object): string | null {
  const gid = "admin_graphql_api_id" in body && typeof body.admin_graphql_api_id === "string" ? body.admin_graphql_api_id : "";
  return /^gid:\/\/shopify\/(\w+)\//.exec(gid)?.[1] ?? null;
}

/** A body as the consumer applies it: an order's state, a refund, or why it is neither. */
export type ShopifyBody =
  | { kind: "order"; order: Order }
  | { kind: "refund"; refundId: string; orderId: string; lines: RefundedLine[] }
  | { kind: "dispute"; dispute: DisputeBody }
  | { kind: "rejected"; reason: string };

/** An order body: what it says of the order, in our terms. */
function readOrderBody(json: unknown): ShopifyBody {
  const raw = parse(orderSchema, json);
  return raw.ok ? { kind: "order", order: toOrder(raw.value) } : { kind: "rejected", reason: raw.problem.message };
}

/** A refund body: the refund, its order and the units it refunds. */
function readRefundBody(json: unknown): ShopifyBody {
  const refund = parse(refundSchema, json);
  if (!refund.ok) return { kind: "rejected", reason: refund.problem.message };
  return { kind: "refund", refundId: refund.value.id, orderId: refund.value.order_id, lines: refundLines(refund.value.refund_line_items) };
}

const time = (text: string | null | undefined) => {
  const ms = text ? Date.parse(text) : Number.NaN;
  return Number.isFinite(ms) ? ms : null;
};

/** A dispute body: the dispute and its order, in our terms. */
function readDisputeBody(json: unknown): ShopifyBody {
  const raw = parse(disputeSchema, json);
  if (!raw.ok) return { kind: "rejected", reason: raw.problem.message };
  const d = raw.value;
  return {
    kind: "dispute",
    dispute: {
      id: d.id,
      orderId: d.order_id,
      type: d.type ?? "chargeback",
      reason: d.reason ?? null,
      status: d.status,
      amount: d.amount ?? null,
      currency: d.currency ?? null,
      evidenceDueBy: time(d.evidence_due_by),
      initiatedAt: time(d.initiated_at),
    },
  };
}

/**
 * An order body carries line items; a refund body names its order; a dispute body names its order
 * too, with a status and when it was initiated, and no refund lines. A body that names itself as
 * something else (a draft order, a transaction) is not one, whatever its fields.
 */
export function readShopifyBody(json: unknown): ShopifyBody {
  const body = json !== null && typeof json === "object" && !Array.isArray(json) ? json : {};
  const kind = kindOf(body);
  if ("line_items" in body && (kind === null || kind === "Order")) return readOrderBody(json);
  if ("order_id" in body && "status" in body && "initiated_at" in body && !("refund_line_items" in body) && kind === null)
    return readDisputeBody(json);
  if ("order_id" in body && !("line_items" in body) && (kind === null || kind === "Refund")) return readRefundBody(json);
  return { kind: "rejected", reason: "payload: neither an order (line_items), a refund nor a dispute (order_id)" };
}
