// The order events the shop sends out (webhooks, decision 102): paid, refunded, cancelled, and the
// licences those revoke. Each is keyed by what it is about, so a delivery of Shopify's applied twice
// still sends one event.
import { orderKey } from "~/lib/orders";
import type { Db } from "../platform/db/client.server";
import type { RevokedKey } from "../keys/revoke.server";
import { emitWebhookEvent } from "../webhooks/events.server";
import type { Order } from "./incoming-order.server";

const orderRef = (id: string) => ({ id: orderKey("shopify", id), source: "shopify", reference: id });

/** A card (or demo checkout) order's payment. */
export async function orderPaid(db: Db, order: Order): Promise<void> {
  await emitWebhookEvent(
    { db },
    "order.paid",
    {
      order: {
        ...orderRef(order.id),
        name: order.name,
        email: order.email,
        currency: order.currency,
        total: order.totalPrice,
        lines: order.lines.map(({ title, variantTitle, quantity, price }) => ({ title, variantTitle, quantity, price })),
      },
    },
    { key: `order.paid:${orderKey("shopify", order.id)}` },
  );
}

/** Keys a refund, a cancellation or a lost dispute revoked: their licences now answer REVOKED. */
async function licencesRevoked(db: Db, orderId: string, revoked: RevokedKey[], reason: "refunded" | "cancelled" | "dispute-lost") {
  for (const key of revoked)
    await emitWebhookEvent(
      { db },
      "licence.revoked",
      { licence: { key: key.code, variantTitle: key.variantTitle }, order: orderRef(orderId), reason },
      { key: `licence.revoked:${key.code}` },
    );
}

export async function orderRefunded(db: Db, orderId: string, refundId: string, revoked: RevokedKey[]): Promise<void> {
  await emitWebhookEvent(
    { db },
    "order.refunded",
    { order: orderRef(orderId), refund: { id: refundId }, keysRevoked: revoked.map((key) => key.code) },
    { key: `order.refunded:${refundId}` },
  );
  await licencesRevoked(db, orderId, revoked, "refunded");
}

export async function orderCancelled(db: Db, orderId: string, revoked: RevokedKey[]): Promise<void> {
  await emitWebhookEvent(
    { db },
    "order.cancelled",
    { order: orderRef(orderId), keysRevoked: revoked.map((key) => key.code) },
    { key: `order.cancelled:${orderKey("shopify", orderId)}` },
  );
  await licencesRevoked(db, orderId, revoked, "cancelled");
}

export const licencesRevokedByDispute = (db: Db, orderId: string, revoked: RevokedKey[]) =>
  licencesRevoked(db, orderId, revoked, "dispute-lost");
