// CSV exports of orders and keys for the back office, streamed a page at a time (platform/csv).
import { and, asc, eq, gt, gte, isNotNull, isNull, lt, type SQL, sql } from "drizzle-orm";
import { encodeCursor, type OrderRow } from "~/lib/orders";
import type { KeyExportInput } from "~/lib/schemas/orders";
import { dayStart } from "~/lib/schemas/orders";
import { orderName } from "../platform/db/stored-orders.server";
import { audit } from "../platform/audit.server";
import { csvStream, isoTime } from "../platform/csv.server";
import type { Db } from "../platform/db/client.server";
import { productCodes } from "../platform/db/schema.server";
import type { Actor } from "./order-actions.server";
import { listOrders, type OrderFilters } from "./order-list.server";

export const EXPORT_PAGE_SIZE = 1000;

const ORDER_HEADER = ["order", "source", "reference", "email", "state", "total", "currency", "method", "created at"];

/** Every order the list's filters select, newest first, as CSV; the export is audited with its filters. */
export async function exportOrders(
  db: Db,
  actor: Actor,
  filters: OrderFilters,
  pageSize = EXPORT_PAGE_SIZE,
): Promise<ReadableStream<Uint8Array>> {
  await audit(db, actor.viewer.id, "export.orders", "orders", { ...filters }, actor.ip);
  return csvStream<OrderRow, string>(
    ORDER_HEADER,
    async (after) => {
      const page = await listOrders(db, filters, after ?? "", pageSize);
      if (!page.ok) throw new Error(page.problem.message);
      return { rows: page.value.rows, next: page.value.next && encodeCursor(page.value.next) };
    },
    (o) => [o.number, o.source, o.reference, o.email, o.state, (o.totalCents / 100).toFixed(2), o.currency, o.method, isoTime(o.createdAt)],
  );
}

const KEY_HEADER = ["code id", "variant", "key", "state", "order", "email", "sold at", "revoked at"];

const KEY_STATE: Record<KeyExportInput["state"] & string, SQL | undefined> = {
  "": undefined,
  available: and(eq(productCodes.isUsed, false), isNull(productCodes.revokedAt)),
  sold: and(eq(productCodes.isUsed, true), isNull(productCodes.revokedAt)),
  revoked: isNotNull(productCodes.revokedAt),
};

/**
 * Every stocked key the filters select, oldest first, as CSV. The dates select the day a key was
 * sold, or added for keys still in stock (UTC days).
 */
export async function exportKeys(
  db: Db,
  actor: Actor,
  input: KeyExportInput,
  pageSize = EXPORT_PAGE_SIZE,
): Promise<ReadableStream<Uint8Array>> {
  await audit(db, actor.viewer.id, "export.keys", "keys", { ...input }, actor.ip);
  const from = dayStart(input.from);
  const until = dayStart(input.to, 1);
  const when = sql`coalesce(${productCodes.usedAt}, ${productCodes.createdAt})`;
  const where = and(
    input.variant ? eq(productCodes.variantId, input.variant) : undefined,
    KEY_STATE[input.state],
    from !== undefined ? gte(when, from) : undefined,
    until !== undefined ? lt(when, until) : undefined,
  );
  return csvStream(
    KEY_HEADER,
    async (after: number | null) => {
      const rows = await db
        .select({
          id: productCodes.id,
          variantTitle: productCodes.variantTitle,
          code: productCodes.code,
          isUsed: productCodes.isUsed,
          revokedAt: productCodes.revokedAt,
          order: orderName(productCodes.orderId),
          email: productCodes.customerEmail,
          usedAt: productCodes.usedAt,
        })
        .from(productCodes)
        .where(and(where, after === null ? undefined : gt(productCodes.id, after)))
        .orderBy(asc(productCodes.id))
        .limit(pageSize);
      return { rows, next: rows.length === pageSize ? rows.at(-1)!.id : null };
    },
    (k) => [
      k.id,
      k.variantTitle,
      k.code,
      k.revokedAt !== null ? "revoked" : k.isUsed ? "sold" : "available",
      k.order,
      k.email,
      isoTime(k.usedAt),
      isoTime(k.revokedAt),
    ],
  );
}
