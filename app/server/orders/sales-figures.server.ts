// Sales at a glance (decision 039): the last 30 UTC days of paid orders by payment method, units
// sold per variant, renewals apart from new purchases (decision 090), stock per variant and the top
// resellers. Read from order_index (every order source in one shape), product_codes, the licences'
// renewals and the reseller ledger; all money in US cents.
import { and, count, desc, eq, gte, isNull, lte, sql } from "drizzle-orm";
import { PAYMENT_METHODS, type PaymentMethod, SALES_DAYS } from "~/lib/sales";
import { type StockLevel, stockLevels } from "../keys/stock-alerts.server";
import type { Db } from "../platform/db/client.server";
import { cryptoOrders, licenceRenewals, licences, orderIndex, productCodes, profiles, resellerLedger } from "../platform/db/schema.server";
import { DAY_MS } from "~/lib/time";

export type DayRevenue = { day: string } & Record<PaymentMethod, number>;

export interface SalesOverview {
  /** The first UTC day counted (epoch ms of its midnight). */
  since: number;
  /** USD cents per UTC day and method, oldest day first, every day present. */
  days: DayRevenue[];
  /** Paid orders in other currencies: not in the chart, listed beside it. */
  otherCurrencies: { currency: string; cents: number; orders: number }[];
  /** Orders of the period refunded or cancelled after payment: left out of revenue. */
  leftOut: { currency: string; cents: number; orders: number }[];
  units: { title: string; units: number }[];
  /** Renewals that kept the key, apart from new purchases (decision 090): what came back, and what moved up. */
  renewals: RenewalFigures;
  stock: StockLevel[];
  resellers: { userId: string; username: string | null; cents: number; purchases: number }[];
}

const day = sql<string>`strftime('%Y-%m-%d', ${orderIndex.createdAt} / 1000, 'unixepoch')`;

/**
 * Paid: a Shopify order paid and neither refunded nor cancelled, a crypto key order complete (a
 * top-up only moves money to a balance, which counts when it is spent), a reseller's purchase.
 */
const paid = sql`(
  (${orderIndex.source} = 'shopify' and ${orderIndex.state} = 'paid')
  or (${orderIndex.source} = 'crypto' and ${orderIndex.state} = 'complete'
      and not exists (select 1 from ${cryptoOrders} where ${cryptoOrders.orderNumber} = ${orderIndex.reference} and ${cryptoOrders.purpose} = 'top-up'))
  or ${orderIndex.source} = 'reseller')`;

export interface RenewalFigures {
  /** Keys handed out (new purchases) and renewals of existing licences in the period, and what renewals paid in US dollars. */
  newPurchases: number;
  renewals: number;
  renewalCents: number;
  /** Upgrades to a longer plan and what they paid in US dollars. */
  upgrades: number;
  upgradeCents: number;
  /** Licences that ended in the period (or were due to and were renewed), and how many of them were renewed within 7 days of their end. */
  ended: number;
  renewedWithinWeek: number;
}

/** A renewal counts until it is refunded. */
const kept = isNull(licenceRenewals.refundedAt);

/**
 * Renewals apart from new purchases: keys handed out versus licences extended, upgrades and their
 * revenue, and the share of licences that ended in the period which were renewed within 7 days of
 * their end (early renewals count; a licence that ended less than 7 days ago and is not renewed yet
 * counts as not renewed).
 */
async function renewalFigures(db: Db, since: number, now: number): Promise<RenewalFigures> {
  const paidIn = (kind: "renewal" | "upgrade") =>
    db
      .select({
        n: count(),
        cents: sql<number>`coalesce(sum(case when ${licenceRenewals.currency} = 'USD' then ${licenceRenewals.priceCents} else 0 end), 0)`,
      })
      .from(licenceRenewals)
      .where(and(eq(licenceRenewals.kind, kind), gte(licenceRenewals.createdAt, since), kept))
      .get();
  const dueInPeriod = and(gte(licenceRenewals.previousExpiresAt, since), lte(licenceRenewals.previousExpiresAt, now));
  const [[sold], renewed, upgraded, [renewedDue], [inTime], [endedUnrenewed]] = await Promise.all([
    db
      .select({ n: count() })
      .from(productCodes)
      .where(and(eq(productCodes.isUsed, true), gte(productCodes.usedAt, since), isNull(productCodes.revokedAt))),
    paidIn("renewal"),
    paidIn("upgrade"),
    // Licences due to end in the period that were renewed (whenever): each renewal names the end it followed.
    db
      .select({ n: count() })
      .from(licenceRenewals)
      .where(and(eq(licenceRenewals.kind, "renewal"), kept, dueInPeriod)),
    db
      .select({ n: count() })
      .from(licenceRenewals)
      .where(
        and(
          eq(licenceRenewals.kind, "renewal"),
          kept,
          dueInPeriod,
          sql`${licenceRenewals.createdAt} <= ${licenceRenewals.previousExpiresAt} + ${RENEWED_WITHIN_MS}`,
        ),
      ),
    // Licences whose end in the period still stands: they ended and were not renewed.
    db
      .select({ n: count() })
      .from(licences)
      .where(and(gte(licences.expiresAt, since), lte(licences.expiresAt, now), isNull(licences.revokedAt))),
  ]);
  return {
    newPurchases: sold?.n ?? 0,
    renewals: renewed?.n ?? 0,
    renewalCents: renewed?.cents ?? 0,
    upgrades: upgraded?.n ?? 0,
    upgradeCents: upgraded?.cents ?? 0,
    ended: (renewedDue?.n ?? 0) + (endedUnrenewed?.n ?? 0),
    renewedWithinWeek: inTime?.n ?? 0,
  };
}

/** A licence renewed within this long of its end counts as renewed. */
const RENEWED_WITHIN_MS = 7 * DAY_MS;

export async function salesOverview(db: Db, variants: { id: string; title: string }[], now = Date.now()): Promise<SalesOverview> {
  const since = Math.floor(now / DAY_MS) * DAY_MS - (SALES_DAYS - 1) * DAY_MS;
  const [revenue, leftOut, units, stock, resellers, renewals] = await Promise.all([
    db
      .select({
        day,
        method: orderIndex.method,
        currency: orderIndex.currency,
        cents: sql<number>`sum(${orderIndex.totalCents})`,
        orders: count(),
      })
      .from(orderIndex)
      .where(and(gte(orderIndex.createdAt, since), paid))
      .groupBy(day, orderIndex.method, orderIndex.currency),
    db
      .select({ currency: orderIndex.currency, cents: sql<number>`sum(${orderIndex.totalCents})`, orders: count() })
      .from(orderIndex)
      .where(and(gte(orderIndex.createdAt, since), eq(orderIndex.source, "shopify"), sql`${orderIndex.state} in ('refunded', 'cancelled')`))
      .groupBy(orderIndex.currency),
    db
      .select({ title: productCodes.variantTitle, units: count() })
      .from(productCodes)
      .where(and(eq(productCodes.isUsed, true), gte(productCodes.usedAt, since), isNull(productCodes.revokedAt)))
      .groupBy(productCodes.variantTitle)
      .orderBy(desc(count()), productCodes.variantTitle),
    stockLevels(db, variants),
    db
      .select({
        userId: resellerLedger.userId,
        username: profiles.username,
        cents: sql<number>`-sum(${resellerLedger.amountCents})`,
        purchases: count(),
      })
      .from(resellerLedger)
      .leftJoin(profiles, eq(profiles.id, resellerLedger.userId))
      .where(and(eq(resellerLedger.kind, "purchase"), gte(resellerLedger.createdAt, since)))
      .groupBy(resellerLedger.userId)
      .orderBy(sql`-sum(${resellerLedger.amountCents}) desc`)
      .limit(10),
    renewalFigures(db, since, now),
  ]);

  const days = Array.from({ length: SALES_DAYS }, (_, i): DayRevenue => {
    const empty = Object.fromEntries(PAYMENT_METHODS.map((m) => [m, 0])) as Record<PaymentMethod, number>;
    return { day: new Date(since + i * DAY_MS).toISOString().slice(0, 10), ...empty };
  });
  const byDay = new Map(days.map((d) => [d.day, d]));
  const others = new Map<string, { currency: string; cents: number; orders: number }>();
  for (const row of revenue) {
    const target = byDay.get(row.day);
    if (row.currency === "USD" && target && (PAYMENT_METHODS as readonly string[]).includes(row.method)) {
      target[row.method as PaymentMethod] += row.cents;
      continue;
    }
    const other = others.get(row.currency) ?? { currency: row.currency, cents: 0, orders: 0 };
    other.cents += row.cents;
    other.orders += row.orders;
    others.set(row.currency, other);
  }
  return { since, days, otherCurrencies: [...others.values()], leftOut, units, renewals, stock, resellers };
}
