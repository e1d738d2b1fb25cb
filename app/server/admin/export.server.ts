// CSV exports of orders and keys, streamed: the response is a ReadableStream that reads the
// database a page at a time (keyset pagination) as the client reads, so an export of any size
// never sits in memory whole. Cells are escaped for CSV and defused for spreadsheets.
import { and, asc, eq, gt, gte, isNotNull, isNull, lt, type SQL, sql } from "drizzle-orm";
import { encodeCursor, type OrderRow } from "~/lib/orders";
import type { KeyExportInput } from "~/lib/schemas/orders";
import { dayStart } from "~/lib/schemas/orders";
import { orderName } from "../fulfilment/order-lines.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { productCodes } from "../platform/db/schema.server";
import type { Actor } from "./order-actions.server";
import { listOrders, type OrderFilters } from "./orders.server";

export const EXPORT_PAGE_SIZE = 1000;

/**
 * One CSV cell: text that a spreadsheet would run as a formula (= + - @, or a leading tab or
 * carriage return) gets an apostrophe in front; a cell with a quote, comma or line break is quoted.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (cells: (string | number | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * A CSV stream: the header, then one page after another from `nextPage` (given the last page's
 * position), each turned into lines and handed on before the next page is read.
 */
function csvStream<T, P>(header: string[], nextPage: (after: P | null) => Promise<{ rows: T[]; next: P | null }>, line: (row: T) => (string | number | null)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: P | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(encoder.encode(csvLine(header)));
          return;
        }
        const page = await nextPage(after);
        if (page.rows.length > 0) controller.enqueue(encoder.encode(page.rows.map((row) => csvLine(line(row))).join("")));
        if (page.next === null) controller.close();
        else after = page.next;
      },
    },
    { highWaterMark: 0 },
  );
}

const ORDER_HEADER = ["order", "source", "reference", "email", "state", "total", "currency", "method", "created at"];

/** Every order the list's filters select, newest first, as CSV; the export is audited with its filters. */
export async function exportOrders(db: Db, actor: Actor, filters: OrderFilters, pageSize = EXPORT_PAGE_SIZE): Promise<ReadableStream<Uint8Array>> {
  await audit(db, actor.viewer.id, "export.orders", "orders", { ...filters }, actor.ip);
  return csvStream<OrderRow, string>(
    ORDER_HEADER,
    async (after) => {
      const page = await listOrders(db, filters, after ?? "", pageSize);
      if (!page.ok) throw new Error(page.problem.message);
      return { rows: page.value.rows, next: page.value.next && encodeCursor(page.value.next) };
    },
    (o) => [o.number, o.source, o.reference, o.email, o.state, (o.totalCents / 100).toFixed(2), o.currency, o.method, iso(o.createdAt)],
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
export async function exportKeys(db: Db, actor: Actor, input: KeyExportInput, pageSize = EXPORT_PAGE_SIZE): Promise<ReadableStream<Uint8Array>> {
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
    (k) => [k.id, k.variantTitle, k.code, k.revokedAt !== null ? "revoked" : k.isUsed ? "sold" : "available", k.order, k.email, iso(k.usedAt), iso(k.revokedAt)],
  );
}

/** "orders-2025-06-01.csv": what the download is called. */
export const exportFilename = (what: string, now = Date.now()) => `${what}-${new Date(now).toISOString().slice(0, 10)}.csv`;
