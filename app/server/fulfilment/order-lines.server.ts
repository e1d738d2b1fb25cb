// An order as fulfilment sees it: its lines, as Shopify (or a crypto checkout) described them and
// as they are stored with the order.
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { variantGid } from "~/lib/catalogue";
import { shopifyOrders } from "../platform/db/schema.server";

export interface OrderLine {
  id: string;
  /** Canonical variant GID, or null for a custom line with no variant. */
  variantId: string | null;
  quantity: number;
  title: string;
  variantTitle: string;
  price: string;
}

export interface Order {
  id: string;
  name: string;
  /** As the order gives it; "" when it gives none (the keys are handed out all the same). */
  email: string;
  currency: string;
  financialStatus: string | null;
  totalPrice: string | null;
  /** The order's own (signed) state, never the delivery's topic: paid, and cancelled. */
  paid: boolean;
  cancelled: boolean;
  /** The body's signed `updated_at`, in ms (0 when it has none): older bodies are not applied. */
  updatedAt: number;
  /** The cart the order was checked out from (Shopify's `cart_token`), when Shopify says. */
  cartToken: string | null;
  /** The affiliate code the order was referred by (a cart attribute, or a discount code), if any. */
  referral: string | null;
  lines: OrderLine[];
  /** Refunds the body lists (an order body carries every refund made so far). */
  refunds: { id: string; lines: { lineId: string; quantity: number }[] }[];
}

/** A line of a stored order (its `lineItems` column holds the lines as JSON). */
export function storedLine(order: { lineItems: string }, lineId: string | null): OrderLine | undefined {
  return (JSON.parse(order.lineItems) as OrderLine[]).find((line) => line.id === lineId);
}

/** Turns Shopify's numeric variant id into our canonical GID. */
export function lineVariant(variantId: number | string | null | undefined): string | null {
  if (variantId === null || variantId === undefined || variantId === "") return null;
  const text = String(variantId);
  return /^\d+$/.test(text) ? variantGid(text) : text.startsWith("gid://shopify/ProductVariant/") ? text : null;
}

/**
 * The name people know an order by, for a column holding an order id: Shopify's "#1001" where
 * the order is stored, else the id itself (a crypto order's id is its number, "CRYPTO-...").
 */
export function orderName(orderId: SQLWrapper): SQL<string | null> {
  return sql<string | null>`coalesce((select ${shopifyOrders.name} from ${shopifyOrders} where ${shopifyOrders.id} = ${orderId}), ${orderId})`;
}
