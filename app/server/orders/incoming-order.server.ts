// An order as fulfilment reads it from a Shopify body (or a crypto checkout): who paid, its signed
// state, its lines and the refunds it lists.
import { variantGid } from "~/lib/catalogue";
import type { OrderLine } from "../platform/db/stored-orders.server";

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
  /** The licence the cart named for this payment to renew (a cart attribute, decision 090), if any. */
  renewsLicence: number | null;
  /** The billing (else shipping) country and the browser's address, as the order gives them: its risk (decision 093). */
  country?: string | null;
  browserIp?: string | null;
  lines: OrderLine[];
  /** Refunds the body lists (an order body carries every refund made so far). */
  refunds: { id: string; lines: { lineId: string; quantity: number }[] }[];
}

/** Turns Shopify's numeric variant id into our canonical GID. */
export function lineVariant(variantId: number | string | null | undefined): string | null {
  if (variantId === null || variantId === undefined || variantId === "") return null;
  const text = String(variantId);
  return /^\d+$/.test(text) ? variantGid(text) : text.startsWith("gid://shopify/ProductVariant/") ? text : null;
}
