// The back office's list of orders over every source (the order_index view), its filters and its
// search (by key, transaction id, order number or e-mail), and finding one order. Reading only: one
// order's page is order-page.server.ts, the actions on an order order-actions.server.ts.
import { and, desc, eq, gte, inArray, lt, or, type Placeholder, type SQL, sql, type SQLWrapper } from "drizzle-orm";
import { decodeCursor, type OrderCursor, type OrderRow, type OrderSource, type UndeliveredMail } from "~/lib/orders";
import { fail, ok, type Result } from "~/lib/result";
import { dayStart, type OrderListInput } from "~/lib/schemas/orders";
import type { Db } from "../platform/db/client.server";
import { builtOnce, decodedRows } from "../platform/db/reads.server";
import {
  cryptoOrders,
  licences,
  mailOutbox,
  manualOrders,
  orderIndex,
  productCodes,
  resellerKeys,
  resellerLedger,
  shopifyOrders,
} from "../platform/db/schema.server";

export const ORDER_PAGE_SIZE = 50;

/** What the list filters on, after the form's checks: dates as UTC milliseconds. */
export interface OrderFilters {
  q: string;
  source?: OrderSource;
  state?: string;
  from?: number;
  /** Exclusive: the first millisecond after the last day asked for. */
  until?: number;
}

export function orderFilters(input: Pick<OrderListInput, "q" | "source" | "state" | "from" | "to">): OrderFilters {
  return {
    q: input.q,
    source: input.source || undefined,
    state: input.state || undefined,
    from: dayStart(input.from),
    until: dayStart(input.to, 1),
  };
}

/** A term's value: the value itself, or a placeholder of that name in a statement built once. */
type Value = <T>(name: string, value: T) => T | Placeholder;
const itself: Value = (_name, value) => value;
const placeholder: Value = (name) => sql.placeholder(name);

/** The view's WHERE terms for the filters other than the search: SQLite pushes each into every arm. */
function filterTerms(filters: OrderFilters, value: Value = itself): (SQL | undefined)[] {
  return [
    filters.source ? eq(orderIndex.source, value("source", filters.source)) : undefined,
    filters.state ? eq(orderIndex.state, value("state", filters.state)) : undefined,
    filters.from !== undefined ? gte(orderIndex.createdAt, value("from", filters.from)) : undefined,
    filters.until !== undefined ? lt(orderIndex.createdAt, value("until", filters.until)) : undefined,
  ];
}

/** Rows strictly after the cursor in the list's order (created_at desc, key desc). */
function afterCursor(cursor: OrderCursor | null, value: Value = itself) {
  if (!cursor) return undefined;
  const at = value("cursorAt", cursor.createdAt);
  return or(lt(orderIndex.createdAt, at), and(eq(orderIndex.createdAt, at), lt(orderIndex.key, value("cursorKey", cursor.key))));
}

/** A 64-hex-digit transaction id, as wallets and explorers show one. */
const TXID = /^[0-9a-f]{64}$/i;

export type OrderReference = { source: OrderSource; reference: string; createdAt: number };

/** The order a product code was sold to, from its order_id: "M-<id>", a crypto order number, or a Shopify id. */
async function orderOfCodeOrderId(db: Db, orderId: string): Promise<OrderReference | undefined> {
  const manual = /^M-(\d{1,15})$/.exec(orderId);
  if (manual) {
    const row = await db
      .select({ createdAt: manualOrders.createdAt })
      .from(manualOrders)
      .where(eq(manualOrders.id, Number(manual[1])))
      .get();
    return row && { source: "admin", reference: manual[1]!, createdAt: row.createdAt };
  }
  const [crypto, shopify] = await Promise.all([
    db.select({ createdAt: cryptoOrders.createdAt }).from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderId)).get(),
    db.select({ createdAt: shopifyOrders.receivedAt }).from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get(),
  ]);
  if (crypto) return { source: "crypto", reference: orderId, createdAt: crypto.createdAt };
  return shopify && { source: "shopify", reference: orderId, createdAt: shopify.createdAt };
}

async function resellerPurchase(db: Db, ledgerId: number | null): Promise<OrderReference | undefined> {
  if (ledgerId === null) return undefined;
  const row = await db
    .select({ createdAt: resellerLedger.createdAt })
    .from(resellerLedger)
    .where(and(eq(resellerLedger.id, ledgerId), eq(resellerLedger.kind, "purchase")))
    .get();
  return row && { source: "reseller", reference: String(ledgerId), createdAt: row.createdAt };
}

/** The orders a key belongs to: a stocked code's order, a reseller key's purchase, or a licence's. */
async function ordersOfKey(db: Db, key: string): Promise<OrderReference[]> {
  const [code, resold, licence] = await Promise.all([
    db.select({ orderId: productCodes.orderId }).from(productCodes).where(eq(productCodes.code, key)).get(),
    db.select({ purchaseId: resellerKeys.purchaseId }).from(resellerKeys).where(eq(resellerKeys.keyCode, key)).get(),
    db
      .select({ orderId: licences.orderId, purchaseId: resellerKeys.purchaseId })
      .from(licences)
      .leftJoin(resellerKeys, eq(resellerKeys.id, licences.resellerKeyId))
      .where(eq(licences.key, key))
      .get(),
  ]);
  const found = await Promise.all([
    code?.orderId ? orderOfCodeOrderId(db, code.orderId) : undefined,
    resellerPurchase(db, resold?.purchaseId ?? null),
    licence?.orderId ? orderOfCodeOrderId(db, licence.orderId) : undefined,
    resellerPurchase(db, licence?.purchaseId ?? null),
  ]);
  return found.filter((o): o is OrderReference => o !== undefined);
}

/** Orders by the number people quote: "#1001" or "1001" (Shopify), a crypto order number, "R-12", "M-3". */
async function ordersOfNumber(db: Db, q: string): Promise<OrderReference[]> {
  const reseller = /^R-(\d{1,15})$/i.exec(q);
  if (reseller) return [await resellerPurchase(db, Number(reseller[1]))].filter((o) => o !== undefined);
  const manual = /^M-(\d{1,15})$/i.exec(q);
  if (manual) return [await orderOfCodeOrderId(db, `M-${manual[1]}`)].filter((o) => o !== undefined);
  const names = q.startsWith("#") ? [q] : [`#${q}`, q];
  const [shopify, crypto] = await Promise.all([
    db
      .select({ id: shopifyOrders.id, createdAt: shopifyOrders.receivedAt })
      .from(shopifyOrders)
      .where(or(inArray(shopifyOrders.name, names), eq(shopifyOrders.id, q)))
      .limit(ORDER_PAGE_SIZE),
    db.select({ createdAt: cryptoOrders.createdAt }).from(cryptoOrders).where(eq(cryptoOrders.orderNumber, q.toUpperCase())).get(),
  ]);
  return [
    ...shopify.map((o) => ({ source: "shopify" as const, reference: o.id, createdAt: o.createdAt })),
    ...(crypto ? [{ source: "crypto" as const, reference: q.toUpperCase(), createdAt: crypto.createdAt }] : []),
  ];
}

/** Crypto orders a payment paid: the typed-in transaction id, or one the chain showed (payments JSON). */
async function ordersOfTransaction(db: Db, txid: string): Promise<OrderReference[]> {
  const lower = txid.toLowerCase();
  const rows = await db
    .select({ orderNumber: cryptoOrders.orderNumber, createdAt: cryptoOrders.createdAt })
    .from(cryptoOrders)
    .where(
      or(eq(cryptoOrders.transactionId, txid), eq(cryptoOrders.transactionId, lower), sql`instr(${cryptoOrders.payments}, ${lower}) > 0`),
    )
    .limit(ORDER_PAGE_SIZE);
  return rows.map((o) => ({ source: "crypto", reference: o.orderNumber, createdAt: o.createdAt }));
}

/** The orders a search names, when it names them one by one (key, transaction id, number); null for an e-mail. */
async function searchedOrders(db: Db, q: string): Promise<OrderReference[] | null> {
  if (q === "" || q.includes("@")) return null;
  if (TXID.test(q)) return ordersOfTransaction(db, q);
  const byKey = await ordersOfKey(db, q);
  return byKey.length > 0 ? byKey : ordersOfNumber(db, q);
}

/**
 * An order's e-mail that could not be delivered, to the address the order holds now: once staff
 * correct the address, the old failure no longer counts. Addresses compare in any (ASCII) case.
 */
const failedMailTo = (order: { key: SQLWrapper | string; email: SQLWrapper | string }) =>
  and(eq(mailOutbox.orderKey, order.key), eq(mailOutbox.status, "failed"), sql`lower(${mailOutbox.toAddress}) = lower(${order.email})`);

const rowColumns = {
  key: orderIndex.key,
  source: orderIndex.source,
  reference: orderIndex.reference,
  number: orderIndex.number,
  email: orderIndex.email,
  state: orderIndex.state,
  totalCents: orderIndex.totalCents,
  currency: orderIndex.currency,
  method: orderIndex.method,
  createdAt: orderIndex.createdAt,
};

/**
 * Whether the order (its key and address) is flagged: read in the statement that reads the rows,
 * through the mail's index on its order, not in a round trip of its own.
 */
const undeliveredFlag = sql<boolean>`exists (select 1 from ${mailOutbox} where ${failedMailTo(orderIndex)})`.mapWith(Boolean);

/** What the list shows of an order: the view's columns and the flag. */
const rowFields = { ...rowColumns, undelivered: undeliveredFlag };

const orderRows = (db: Db) => db.select(rowFields).from(orderIndex);

/**
 * The unsearched list's statement for one shape of filters (which of them are set, and whether
 * there is a cursor), built once per database, each value a placeholder: building a statement's SQL
 * cost the list about as much as decoding its rows.
 */
const listStatements = builtOnce(() => new Map<string, ReturnType<typeof listStatement>>());

function listStatement(db: Db, terms: (SQL | undefined)[]) {
  return orderRows(db)
    .where(and(...terms))
    .orderBy(desc(orderIndex.createdAt), desc(orderIndex.key))
    .limit(sql.placeholder("size"))
    .prepare();
}

const newestFirst = (a: OrderRow, b: OrderRow) => b.createdAt - a.createdAt || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);

/** The order_index row of one order, found through its own table's index (source, reference and time pushed into the arm). */
function indexRow(db: Db, order: OrderReference, terms: (SQL | undefined)[] = []) {
  return orderRows(db)
    .where(
      and(
        eq(orderIndex.source, order.source),
        eq(orderIndex.reference, order.reference),
        eq(orderIndex.createdAt, order.createdAt),
        ...terms,
      ),
    )
    .get();
}

export interface OrderPage {
  rows: OrderRow[];
  /** The cursor of the next (older) page, or null on the last page. */
  next: OrderCursor | null;
}

/** The newest e-mail of `order` that could not be delivered to the address it holds now, if any. */
export async function undeliveredMail(db: Db, order: Pick<OrderRow, "key" | "email">): Promise<UndeliveredMail | undefined> {
  return db
    .select({ to: mailOutbox.toAddress, error: mailOutbox.lastError, at: mailOutbox.createdAt })
    .from(mailOutbox)
    .where(failedMailTo(order))
    .orderBy(desc(mailOutbox.createdAt))
    .limit(1)
    .get();
}

/** A page of the order list, newest first, after `cursor` (an opaque string from a previous page). */
export async function listOrders(db: Db, filters: OrderFilters, cursorText = "", size = ORDER_PAGE_SIZE): Promise<Result<OrderPage>> {
  const cursor = cursorText ? decodeCursor(cursorText) : null;
  if (cursorText && !cursor) return fail("invalid", "This link to a page of orders is broken", { field: "cursor" });
  const page = (rows: OrderRow[]): OrderPage => {
    const shown = rows.slice(0, size);
    const last = shown.at(-1);
    return { rows: shown, next: rows.length > size && last ? { createdAt: last.createdAt, key: last.key } : null };
  };
  const named = await searchedOrders(db, filters.q);
  if (named) {
    const rows = await Promise.all(named.map((order) => indexRow(db, order, [...filterTerms(filters), afterCursor(cursor)])));
    const unique = [...new Map(rows.flatMap((row) => (row ? [[row.key, row] as const] : []))).values()];
    return ok(page(unique.sort(newestFirst)));
  }
  const searched = filters.q !== "";
  const terms = [
    ...filterTerms(filters, placeholder),
    searched ? eq(orderIndex.emailKey, sql.placeholder("email")) : undefined,
    afterCursor(cursor, placeholder),
  ];
  // The statement's shape is which of its terms are there.
  const shape = terms.map((term) => (term ? 1 : 0)).join("");
  const statements = listStatements(db);
  let statement = statements.get(shape);
  if (!statement) statements.set(shape, (statement = listStatement(db, terms)));
  // SQLite flattens the view (its columns have one affinity in every arm): each arm reads its own
  // time index newest first and stops after a page, the arms are merged in order, and the flag is
  // looked up only for the rows the merge takes.
  const values = await statement.values({
    ...filters,
    email: filters.q.toLowerCase(),
    cursorAt: cursor?.createdAt,
    cursorKey: cursor?.key,
    size: size + 1,
  });
  const rows = decodedRows(rowFields, values);
  return ok(page(rows));
}

/** The order_id a source's product codes (and backorders, licences) carry; null for a reseller purchase. */
export function codeOrderId(source: OrderSource, reference: string): string | null {
  return source === "reseller" ? null : source === "admin" ? `M-${reference}` : reference;
}

/** An order's row in the index, found through its own table. */
export async function findOrder(db: Db, source: OrderSource, reference: string): Promise<OrderRow | undefined> {
  let createdAt: number | undefined;
  if (source === "shopify")
    createdAt = (await db.select({ at: shopifyOrders.receivedAt }).from(shopifyOrders).where(eq(shopifyOrders.id, reference)).get())?.at;
  else if (source === "crypto")
    createdAt = (await db.select({ at: cryptoOrders.createdAt }).from(cryptoOrders).where(eq(cryptoOrders.orderNumber, reference)).get())
      ?.at;
  else if (!/^\d{1,15}$/.test(reference)) return undefined;
  else if (source === "reseller") createdAt = (await resellerPurchase(db, Number(reference)))?.createdAt;
  else
    createdAt = (
      await db
        .select({ at: manualOrders.createdAt })
        .from(manualOrders)
        .where(eq(manualOrders.id, Number(reference)))
        .get()
    )?.at;
  return createdAt === undefined ? undefined : indexRow(db, { source, reference, createdAt });
}
