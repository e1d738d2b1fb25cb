// Orders of every source as the back office shows them: the list's rows, an order's keys and its
// timeline. Shared with the browser (types, labels, the list's cursor), so no server code here.
import type { Money } from "./catalogue";
import type { LicenceState } from "./licences";

// A crypto order's states live here, not with the rest of crypto orders, so that what needs only
// the order sources (the database schema, a licence check's start) does not load the crypto forms.
export const CRYPTO_STATUS_LABEL = {
  pending: "Pending Payment",
  underpaid: "Partially Paid",
  processing: "Processing",
  complete: "Complete",
  expired: "Expired",
  "paid-late": "Paid Late",
  cancelled: "Cancelled",
  submitted: "Payment Submitted",
} as const;

export type CryptoStatus = keyof typeof CRYPTO_STATUS_LABEL;

export const ORDER_SOURCES = ["shopify", "crypto", "reseller", "admin"] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

export const SOURCE_LABEL: Record<OrderSource, string> = { shopify: "Shopify", crypto: "Crypto", reseller: "Reseller", admin: "Admin" };

/** How the timeline finds what belongs to an order (audit subjects, mails): the order_index view's key. */
export const orderKey = (source: OrderSource, reference: string | number) => `${source}:${reference}`;

/** Every state an order of any source can be in (Shopify's, crypto's, and "complete" for the others). */
export const ORDER_STATE_LABEL: Record<string, string> = {
  ...CRYPTO_STATUS_LABEL,
  pending: "Pending",
  paid: "Paid",
  refunded: "Refunded",
};
export const ORDER_STATES = Object.keys(ORDER_STATE_LABEL);

/** One row of the order list (a row of the order_index view). */
export interface OrderRow {
  key: string;
  source: OrderSource;
  reference: string;
  number: string;
  email: string;
  state: string;
  totalCents: number;
  currency: string;
  method: string;
  createdAt: number;
  /** Its e-mail could not be delivered to the address it holds now: staff correct the address. */
  undelivered: boolean;
}

/** Where an order's page is. */
export const orderPath = (order: { source: OrderSource; reference: string }) =>
  `/dashboard/orders/${order.source}/${encodeURIComponent(order.reference)}`;

export const ORDERS_PATH = "/dashboard/orders";

/** The list's position: the last row shown (created_at, key), opaque to the visitor. */
export interface OrderCursor {
  createdAt: number;
  key: string;
}

export function encodeCursor(cursor: OrderCursor): string {
  return btoa(JSON.stringify([cursor.createdAt, cursor.key]))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The cursor a link carried, or null when it was not one of ours. */
export function decodeCursor(text: string): OrderCursor | null {
  try {
    const [createdAt, key] = JSON.parse(atob(text.replace(/-/g, "+").replace(/_/g, "/"))) as unknown[];
    return typeof createdAt === "number" && Number.isSafeInteger(createdAt) && typeof key === "string" && key.length <= 200
      ? { createdAt, key }
      : null;
  } catch {
    return null;
  }
}

export type KeyState = "delivered" | "revoked" | "backordered";

/** One key of an order as the order page shows it: masked; the whole key only through "Reveal". */
export interface OrderKeyView {
  /** "c<id>" for a stocked code, "r<id>" for a reseller's key, "b<id>" for a unit waiting for stock. */
  ref: string;
  masked: string;
  variantTitle: string;
  state: KeyState;
  /** The licence behind the key (none for a unit still waiting). */
  licence: { state: LicenceState; activatedAt: number | null; expiresAt: number | null; pcBound: boolean } | null;
  /** Stocked codes can be revoked and replaced; a reseller's key only revoked. */
  replaceable: boolean;
}

export interface TimelineEntry {
  at: number;
  kind: "order" | "webhook" | "mail" | "refund" | "crypto" | "backorder" | "audit";
  title: string;
  detail: string | null;
  actor: string | null;
}

export interface OrderLineView {
  title: string;
  quantity: number;
  /** The unit price in the order's currency; null where the line has none of its own. */
  price: Money | null;
}

export interface CryptoEvidence {
  coin: string;
  status: string;
  review: string | null;
  amountUnits: number | null;
  receivedUnits: number;
  confirmations: number;
  walletAddress: string;
  transactionId: string | null;
  payments: { txid: string; units: number; height: number | null }[];
  /** When the order last changed: a cancel is taken only on the order as the page showed it. */
  updatedAt: number;
}

/** An e-mail to the buyer that could not be delivered to the address the order holds. */
export interface UndeliveredMail {
  to: string;
  error: string | null;
  at: number;
}

export interface OrderDetail {
  order: OrderRow;
  lines: OrderLineView[];
  crypto: CryptoEvidence | null;
  reason: string | null;
  keys: OrderKeyView[];
  timeline: TimelineEntry[];
  cancellable: boolean;
  /** Set while the order's mail to its buyer fails: staff correct the address and send again. */
  undelivered: UndeliveredMail | null;
  /** A card order's risk (decision 093): its reasons, and whether it is held for review. */
  risk: OrderRisk | null;
}

export interface OrderRisk {
  reasons: { code: string; label: string }[];
  heldAt: number | null;
  releasedAt: number | null;
  /** Where the buyer paid from, as the order says. */
  country: string | null;
}
