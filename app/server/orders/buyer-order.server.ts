// An order's keys as its buyer reads them right after paying: every key handed out so far, and
// how many units still wait for stock. The page that shows them checks the reader is that buyer.
import { and, asc, count, eq, isNull } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { backorders, productCodes } from "../platform/db/schema.server";

export interface BuyerOrderKeys {
  keys: { variantTitle: string; code: string; revoked: boolean }[];
  waiting: number;
}

export async function keysOfOrder(db: Db, orderId: string): Promise<BuyerOrderKeys> {
  const [keys, [waiting]] = await Promise.all([
    db
      .select({ variantTitle: productCodes.variantTitle, code: productCodes.code, revokedAt: productCodes.revokedAt })
      .from(productCodes)
      .where(eq(productCodes.orderId, orderId))
      .orderBy(asc(productCodes.orderLineId), asc(productCodes.unitIndex)),
    db
      .select({ n: count() })
      .from(backorders)
      .where(and(eq(backorders.orderId, orderId), isNull(backorders.filledAt), isNull(backorders.cancelledAt))),
  ]);
  return {
    keys: keys.map((k) => ({ variantTitle: k.variantTitle, code: k.code, revoked: k.revokedAt !== null })),
    waiting: waiting?.n ?? 0,
  };
}
