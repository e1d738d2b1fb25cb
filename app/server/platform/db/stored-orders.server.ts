// Orders as they are stored: a line of a stored order, and the name people know an order by. Keys,
// licences and subscriptions point at their order by id; these read it back.
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { shopifyOrders } from "./schema.server";

export interface OrderLine {
  id: string;
  /** Canonical variant GID, or null for a custom line with no variant. */
  variantId: string | null;
  quantity: number;
  title: string;
  variantTitle: string;
  price: string;
  /** What the line's discounts took off it in all (an upgrade's credit, a discount code), when Shopify says. */
  discount?: string;
}

/** A line of a stored order (its `lineItems` column holds the lines as JSON). */
export function storedLine(order: { lineItems: string }, lineId: string | null): OrderLine | undefined {
  return (JSON.parse(order.lineItems) as OrderLine[]).find((line) => line.id === lineId);
}

/**
 * The name people know an order by, for a column holding an order id: Shopify's "#1001" where
 * the order is stored, else the id itself (a crypto order's id is its number, "CRYPTO-...").
 */
export function orderName(orderId: SQLWrapper): SQL<string | null> {
  return sql<
    string | null
  >`coalesce((select ${shopifyOrders.name} from ${shopifyOrders} where ${shopifyOrders.id} = ${orderId}), ${orderId})`;
}
