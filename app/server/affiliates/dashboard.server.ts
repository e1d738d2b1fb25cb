// What an affiliate and the shop's staff see of the programme: clicks, referred orders,
// conversion, pending / available / paid-out money, a 30-day chart and the referred orders with
// their buyers masked. Reads only; every figure is derived from the clicks and the ledger.
import { and, asc, count, desc, eq, gt, gte, sql } from "drizzle-orm";
import { maskEmail } from "~/lib/affiliates";
import { DAY_MS } from "~/lib/time";
import { audit } from "../platform/audit.server";
import { csvStream, isoTime } from "../platform/csv.server";
import type { Db } from "../platform/db/client.server";
import { affiliateClicks, affiliateLedger, affiliates, users } from "../platform/db/schema.server";
import { affiliateLedgerOf, balancesOf } from "./ledger.server";

export const CHART_DAYS = 30;

/** Day 0 of the chart is CHART_DAYS - 1 days before today (UTC days). */
const chartStart = (now: number) => Math.floor(now / DAY_MS) * DAY_MS - (CHART_DAYS - 1) * DAY_MS;

/** Clicks and commissions per day for the last CHART_DAYS days, oldest first. */
async function chartOf(db: Db, affiliateId: string, now: number) {
  const start = chartStart(now);
  const day = (column: typeof affiliateClicks.at | typeof affiliateLedger.createdAt) =>
    sql<number>`cast((${column} - ${start}) / ${DAY_MS} as integer)`;
  const [clicks, commissions] = await Promise.all([
    db
      .select({ day: day(affiliateClicks.at), n: count() })
      .from(affiliateClicks)
      .where(and(eq(affiliateClicks.affiliateId, affiliateId), gte(affiliateClicks.at, start)))
      .groupBy(day(affiliateClicks.at)),
    db
      .select({ day: day(affiliateLedger.createdAt), n: count(), cents: sql<number>`sum(${affiliateLedger.amountCents})` })
      .from(affiliateLedger)
      .where(
        and(eq(affiliateLedger.affiliateId, affiliateId), eq(affiliateLedger.kind, "commission"), gte(affiliateLedger.createdAt, start)),
      )
      .groupBy(day(affiliateLedger.createdAt)),
  ]);
  return Array.from({ length: CHART_DAYS }, (_, i) => ({
    date: start + i * DAY_MS,
    clicks: clicks.find((c) => c.day === i)?.n ?? 0,
    orders: commissions.find((c) => c.day === i)?.n ?? 0,
    cents: commissions.find((c) => c.day === i)?.cents ?? 0,
  }));
}

/** The orders an affiliate referred, newest first: masked buyer, what was paid, the commission and its state. */
async function referredOrders(db: Db, affiliateId: string, now: number, limit = 50) {
  const rows = await db
    .select({
      id: affiliateLedger.id,
      orderKey: affiliateLedger.orderKey,
      buyerEmail: affiliateLedger.buyerEmail,
      orderCents: affiliateLedger.orderCents,
      amountCents: affiliateLedger.amountCents,
      availableAt: affiliateLedger.availableAt,
      createdAt: affiliateLedger.createdAt,
      voided: sql<number>`exists (select 1 from ${affiliateLedger} v where v.kind = 'void' and v.reference = cast(${affiliateLedger.id} as text))`,
    })
    .from(affiliateLedger)
    .where(and(eq(affiliateLedger.affiliateId, affiliateId), eq(affiliateLedger.kind, "commission")))
    .orderBy(desc(affiliateLedger.createdAt), desc(affiliateLedger.id))
    .limit(limit);
  return rows.map(({ buyerEmail, voided, ...row }) => ({
    ...row,
    buyer: maskEmail(buyerEmail ?? ""),
    state: voided ? ("voided" as const) : row.availableAt > now ? ("pending" as const) : ("available" as const),
  }));
}

/** Clicks, referred orders and conversion (orders per click, in percent). */
async function countsOf(db: Db, affiliateId: string) {
  const [[clicks], [orders]] = await Promise.all([
    db.select({ n: count() }).from(affiliateClicks).where(eq(affiliateClicks.affiliateId, affiliateId)),
    db
      .select({ n: count() })
      .from(affiliateLedger)
      .where(and(eq(affiliateLedger.affiliateId, affiliateId), eq(affiliateLedger.kind, "commission"))),
  ]);
  const c = clicks?.n ?? 0;
  const o = orders?.n ?? 0;
  return { clicks: c, orders: o, conversion: c === 0 ? 0 : Math.round((o / c) * 1000) / 10 };
}

/** Everything the affiliate's dashboard shows (the back office shows the same for each affiliate). */
export async function affiliateFigures(db: Db, affiliateId: string, now = Date.now()) {
  const [counts, balances, chart, orders, ledger] = await Promise.all([
    countsOf(db, affiliateId),
    balancesOf(db, affiliateId, now),
    chartOf(db, affiliateId, now),
    referredOrders(db, affiliateId, now),
    affiliateLedgerOf(db, affiliateId),
  ]);
  // The ledger as it is shown: what moved, when, and for what (buyers stay masked).
  const movements = ledger.map((row) => ({
    id: row.id,
    kind: row.kind,
    amountCents: row.amountCents,
    availableAt: row.availableAt,
    createdAt: row.createdAt,
    paidAt: row.paidAt,
    transaction: row.payoutTransaction,
  }));
  return { ...counts, ...balances, chart, referred: orders, movements };
}

/** Staff: every affiliate (applications first, then by code) with their figures. */
export async function affiliatesOverview(db: Db, now = Date.now()) {
  const rows = await db
    .select({ affiliate: affiliates, email: users.email })
    .from(affiliates)
    .innerJoin(users, eq(users.id, affiliates.userId))
    .orderBy(sql`${affiliates.status} <> 'pending'`, affiliates.code)
    .limit(500);
  return Promise.all(
    rows.map(async ({ affiliate, email }) => ({
      ...affiliate,
      email,
      ...(await countsOf(db, affiliate.userId)),
      ...(await balancesOf(db, affiliate.userId, now)),
    })),
  );
}

/** Staff: crypto payouts requested and not yet marked paid, oldest first. */
export function openPayouts(db: Db) {
  return db
    .select({
      id: affiliateLedger.id,
      affiliateId: affiliateLedger.affiliateId,
      code: affiliates.code,
      cents: sql<number>`-${affiliateLedger.amountCents}`,
      address: affiliateLedger.payoutAddress,
      requestedAt: affiliateLedger.createdAt,
    })
    .from(affiliateLedger)
    .innerJoin(affiliates, eq(affiliates.userId, affiliateLedger.affiliateId))
    .where(and(eq(affiliateLedger.kind, "payout"), sql`${affiliateLedger.paidAt} is null`))
    .orderBy(affiliateLedger.createdAt);
}

const LEDGER_HEADER = [
  "id",
  "affiliate code",
  "affiliate email",
  "kind",
  "amount",
  "available at",
  "order",
  "order paid",
  "buyer",
  "reference",
  "payout address",
  "payout transaction",
  "paid at",
  "created at",
];
const EXPORT_PAGE = 1000;

/** Staff: every row of the affiliate ledger as CSV, oldest first, streamed a page at a time; audited. */
export async function exportAffiliateLedger(db: Db, actor: { id: string; ip: string | null }): Promise<ReadableStream<Uint8Array>> {
  await audit(db, actor.id, "export.affiliate-ledger", "affiliates", {}, actor.ip);
  return csvStream<{ row: typeof affiliateLedger.$inferSelect; code: string; email: string }, number>(
    LEDGER_HEADER,
    async (after) => {
      const rows = await db
        .select({ row: affiliateLedger, code: affiliates.code, email: users.email })
        .from(affiliateLedger)
        .innerJoin(affiliates, eq(affiliates.userId, affiliateLedger.affiliateId))
        .innerJoin(users, eq(users.id, affiliateLedger.affiliateId))
        .where(gt(affiliateLedger.id, after ?? 0))
        .orderBy(asc(affiliateLedger.id))
        .limit(EXPORT_PAGE);
      return { rows, next: rows.length === EXPORT_PAGE ? rows.at(-1)!.row.id : null };
    },
    ({ row, code, email }) => [
      row.id,
      code,
      email,
      row.kind,
      (row.amountCents / 100).toFixed(2),
      isoTime(row.availableAt),
      row.orderKey,
      row.orderCents === null ? null : (row.orderCents / 100).toFixed(2),
      row.buyerEmail,
      row.reference,
      row.payoutAddress,
      row.payoutTransaction,
      isoTime(row.paidAt),
      isoTime(row.createdAt),
    ],
  );
}
