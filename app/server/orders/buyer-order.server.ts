// An order's keys as its buyer reads them right after paying: every key handed out so far, how
// many units still wait for stock, and the licences it extended instead. The page that shows them checks the reader is that buyer.
import { and, asc, count, eq, isNull } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { backorders, licenceRenewals, licences, productCodes } from "../platform/db/schema.server";
import { maskKey } from "~/lib/licences";
import { orderKey } from "~/lib/orders";
import type { LicencePlan } from "~/lib/plans";

export interface BuyerOrderKeys {
  keys: { variantTitle: string; code: string; revoked: boolean }[];
  waiting: number;
  /** Licences the order extended instead of handing out keys (decision 090). */
  renewals: { licence: string; product: string; plan: LicencePlan; kind: "renewal" | "upgrade"; expiresAt: number | null }[];
}

export async function keysOfOrder(db: Db, orderId: string): Promise<BuyerOrderKeys> {
  const [keys, [waiting], renewed] = await Promise.all([
    db
      .select({ variantTitle: productCodes.variantTitle, code: productCodes.code, revokedAt: productCodes.revokedAt })
      .from(productCodes)
      .where(eq(productCodes.orderId, orderId))
      .orderBy(asc(productCodes.orderLineId), asc(productCodes.unitIndex)),
    db
      .select({ n: count() })
      .from(backorders)
      .where(and(eq(backorders.orderId, orderId), isNull(backorders.filledAt), isNull(backorders.cancelledAt))),
    db
      .select({
        key: licences.key,
        product: licences.product,
        plan: licenceRenewals.toPlan,
        kind: licenceRenewals.kind,
        expiresAt: licenceRenewals.expiresAt,
      })
      .from(licenceRenewals)
      .innerJoin(licences, eq(licences.id, licenceRenewals.licenceId))
      .where(and(eq(licenceRenewals.orderKey, orderKey("shopify", orderId)), isNull(licenceRenewals.refundedAt)))
      .orderBy(asc(licenceRenewals.orderLineId), asc(licenceRenewals.unitIndex)),
  ]);
  return {
    keys: keys.map((k) => ({ variantTitle: k.variantTitle, code: k.code, revoked: k.revokedAt !== null })),
    waiting: waiting?.n ?? 0,
    renewals: renewed.map(({ key, ...renewal }) => ({ ...renewal, licence: maskKey(key) })),
  };
}
