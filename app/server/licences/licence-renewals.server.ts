// Renewals that keep the key (decision 090): a payment for a licence's plan extends that licence,
// from its expiry while it runs, from the payment once it has ended; a payment for a longer plan
// moves it to that plan. Both are statements for the payer's own batch (an order's fulfilment, a
// crypto settlement, a balance payment), so the money, the record of what it bought and the
// licence change in one D1 transaction, once per payment (the record's unique claim). A refund
// takes back exactly what its renewals added. The licences domain writes these tables; nobody else.
import { and, eq, inArray, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type LicencePlan, PLAN_DURATION_MS } from "~/lib/plans";
import type { Db } from "../platform/db/client.server";
import { read } from "../platform/db/reads.server";
import { licenceRenewals, licences, type RENEWAL_METHODS, userSubscriptions } from "../platform/db/schema.server";

export type RenewalMethod = (typeof RENEWAL_METHODS)[number];
export type RenewalRow = typeof licenceRenewals.$inferSelect;

/** Plans from shortest to longest: an upgrade moves a licence up this list, never down. */
export const PLAN_RANK: Record<LicencePlan, number> = { daily: 0, weekly: 1, monthly: 2, lifetime: 3 };

/** A plan's rank as SQL, for a licence row's plan. */
const rankOf = (plan: SQL | typeof licences.plan) =>
  sql<number>`case ${plan} when 'daily' then 0 when 'weekly' then 1 when 'monthly' then 2 else 3 end`;

/** What one payment buys a licence: its plan again (a renewal) or a longer one (an upgrade). */
export interface Extension {
  /** What paid, once: "shopify:<order>:<line>:<unit>", "crypto:<number>", "balance:<request>", "auto:<licence>:<expiry>". */
  claimKey: string;
  licenceId: number;
  kind: "renewal" | "upgrade";
  toPlan: LicencePlan;
  method: RenewalMethod;
  auto?: boolean;
  /** The order that paid, as the order list names it; SQL when the same batch writes it (a balance purchase). */
  orderKey: string | SQL<string>;
  orderLineId?: string | null;
  unitIndex?: number;
  priceCents: number;
  currency: string;
  paidAt: number;
  /** An upgrade: the new plan's entitlements as SQL (a JSON array, added to what the licence grants) and the subscription's new name. */
  entitlements?: SQL<string[]>;
  variantTitle?: string;
}

/**
 * Whether the licence row may take this extension, checked in the statement itself: not revoked,
 * banned or suspended by the fraud rules; a renewal only of its own timed plan once its clock has started (a key never used has no
 * expiry to extend); an upgrade only to a longer plan, and not while staff have it paused.
 */
function mayTake(extension: Pick<Extension, "kind" | "toPlan">): SQL {
  const base = and(isNull(licences.revokedAt), isNull(licences.bannedAt), isNull(licences.suspendedAt));
  if (extension.kind === "renewal")
    return and(base, eq(licences.plan, extension.toPlan), sql`${licences.plan} <> 'lifetime'`, isNotNull(licences.activatedAt))!;
  return and(base, isNull(licences.pausedAt), sql`${rankOf(licences.plan)} < ${PLAN_RANK[extension.toPlan]}`)!;
}

/**
 * The licence's new expiry. A renewal adds the plan's term to the expiry while the licence runs
 * (a paused one's expiry stands still, so it counts as running), to the payment once it has ended.
 * An upgrade starts the new term at the payment (the unused time was taken off its price), keeps a
 * key never used waiting for its first use, and a lifetime plan has none.
 */
function newExpiry(extension: Pick<Extension, "kind" | "toPlan" | "paidAt">): SQL<number | null> {
  const term = PLAN_DURATION_MS[extension.toPlan];
  const { paidAt } = extension;
  if (extension.kind === "renewal")
    return sql`(case when ${licences.pausedAt} is not null or ${licences.expiresAt} > ${paidAt} then ${licences.expiresAt} else ${paidAt} end) + ${term ?? 0}`;
  if (term === null) return sql`null`;
  return sql`case when ${licences.activatedAt} is null then null else ${paidAt + term} end`;
}

/** How much later the licence now ends than it would have: what a refund takes back (null: moved to lifetime, or a clock not started). */
function addedTime(extension: Pick<Extension, "kind" | "toPlan" | "paidAt">): SQL<number | null> {
  const term = PLAN_DURATION_MS[extension.toPlan];
  if (extension.kind === "renewal") return sql`${term ?? 0}`;
  if (term === null) return sql`null`;
  return sql`case when ${licences.activatedAt} is null then null else ${extension.paidAt + term} - max(coalesce(${licences.expiresAt}, ${extension.paidAt}), ${extension.paidAt}) end`;
}

/**
 * The statements that extend (or upgrade) a licence, for the payer's batch, while `when` holds
 * (the payer's own condition: its claim won, its money moved). The first writes the record, once
 * per claim key; the others follow it only in the batch that wrote it (`ours`), so a second
 * payment of the same claim, or one the licence can no longer take, changes nothing. `ours` lets
 * the payer make its own statements depend on the same thing.
 */
export function extensionStatements(db: Db, extension: Extension, when?: SQL) {
  const id = crypto.randomUUID();
  const ours = sql`exists (select 1 from ${licenceRenewals} where ${licenceRenewals.id} = ${id})`;
  const record = sql`(select ${licenceRenewals.expiresAt} from ${licenceRenewals} where ${licenceRenewals.id} = ${id})`;
  const upgrade = extension.kind === "upgrade";
  const granted = extension.entitlements ?? sql`'[]'`;
  const claim = db
    .insert(licenceRenewals)
    .select(
      db
        .select({
          // Every column, in the table's order (drizzle's rule for insert-select).
          id: sql<string>`${id}`.as("id"),
          claimKey: sql<string>`${extension.claimKey}`.as("claim_key"),
          licenceId: licences.id,
          kind: sql<Extension["kind"]>`${extension.kind}`.as("kind"),
          method: sql<RenewalMethod>`${extension.method}`.as("method"),
          auto: sql<boolean>`${extension.auto ? 1 : 0}`.as("auto"),
          // An order the same batch writes later (a balance purchase) is named once it exists, below.
          orderKey: sql<string | null>`${typeof extension.orderKey === "string" ? extension.orderKey : null}`.as("order_key"),
          orderLineId: sql<string | null>`${extension.orderLineId ?? null}`.as("order_line_id"),
          unitIndex: sql<number>`${extension.unitIndex ?? 0}`.as("unit_index"),
          fromPlan: licences.plan,
          toPlan: sql<LicencePlan>`${extension.toPlan}`.as("to_plan"),
          previousExpiresAt: licences.expiresAt,
          expiresAt: newExpiry(extension).as("expires_at"),
          addedMs: addedTime(extension).as("added_ms"),
          previousEntitlements: licences.entitlements,
          previousVariantTitle: sql<
            string | null
          >`(select ${userSubscriptions.variantTitle} from ${userSubscriptions} where ${userSubscriptions.productCodeId} = ${licences.productCodeId})`.as(
            "previous_variant_title",
          ),
          priceCents: sql<number>`${extension.priceCents}`.as("price_cents"),
          currency: sql<string>`${extension.currency}`.as("currency"),
          createdAt: sql<number>`${extension.paidAt}`.as("created_at"),
          refundedAt: sql<null>`null`.as("refunded_at"),
          refundClaim: sql<null>`null`.as("refund_claim"),
        })
        .from(licences)
        .where(and(eq(licences.id, extension.licenceId), mayTake(extension), when)),
    )
    .onConflictDoNothing({ target: licenceRenewals.claimKey });
  const follow: BatchItem<"sqlite">[] = [
    ...(typeof extension.orderKey === "string"
      ? []
      : [db.update(licenceRenewals).set({ orderKey: extension.orderKey }).where(eq(licenceRenewals.id, id))]),
    db
      .update(licences)
      .set({
        plan: extension.toPlan,
        expiresAt: record,
        // An upgrade adds the new plan's entitlements to what the key grants; nothing is taken away.
        ...(upgrade
          ? {
              entitlements: sql<
                string[]
              >`(select json_group_array(value) from (select value from json_each(${licences.entitlements}) union select value from json_each(${granted})))`,
            }
          : {}),
      })
      .where(and(eq(licences.id, extension.licenceId), ours)),
    // The member's subscription follows its key: the new expiry, current again if it had ended.
    db
      .update(userSubscriptions)
      .set({
        expiryDate: record,
        status: sql`case when ${userSubscriptions.status} = 'expired' then 'active' else ${userSubscriptions.status} end`,
        ...(upgrade && extension.variantTitle ? { variantTitle: extension.variantTitle } : {}),
      })
      .where(
        and(
          sql`${userSubscriptions.productCodeId} = (select ${licences.productCodeId} from ${licences} where ${licences.id} = ${extension.licenceId})`,
          ours,
        ),
      ),
  ];
  return {
    id,
    ours,
    /** All of it, for a payer whose money has already moved (an order's, a crypto order's). */
    statements: [claim, ...follow],
    /** For a payer whose money moves in the same batch: the record first, then its payment, then `undoUnless`, then `follow`. */
    claim,
    follow,
    /** Takes the record back when `paid` does not hold, so `follow` changes nothing. */
    undoUnless: (paid: SQL) => db.delete(licenceRenewals).where(and(eq(licenceRenewals.id, id), sql`not ${paid}`)),
  };
}

/** The record a batch wrote, if it won its claim (read after the batch). */
export const renewalById = (db: Db, id: string) => db.select().from(licenceRenewals).where(eq(licenceRenewals.id, id)).get();

/** The record of a claim, whichever batch wrote it. */
export const renewalByClaim = (db: Db, claimKey: string) =>
  db.select().from(licenceRenewals).where(eq(licenceRenewals.claimKey, claimKey)).get();

/**
 * Takes back what the renewals `selected` (a condition on them) added, while `when` holds, as
 * statements for the refund's or cancellation's batch: each is marked refunded once (`claim` names
 * this run), the licence's expiry moves back by exactly the time they added, never before now (a
 * licence with less left ends now) and never later than it was; an upgrade's plan and entitlements
 * go back to what they were. The subscriptions follow.
 */
export function takeBackStatements(db: Db, selected: SQL, claim: string, now: number, when?: SQL): BatchItem<"sqlite">[] {
  const mine = (extra: SQL = sql`1`) =>
    sql`(select ${licenceRenewals.id} from ${licenceRenewals} where ${licenceRenewals.refundClaim} = ${claim} and ${licenceRenewals.licenceId} = ${licences.id} and ${extra} order by ${licenceRenewals.createdAt} limit 1)`;
  const firstUpgrade = mine(sql`${licenceRenewals.kind} = 'upgrade'`);
  const toLifetime = mine(sql`${licenceRenewals.kind} = 'upgrade' and ${licenceRenewals.toPlan} = 'lifetime'`);
  const column = (name: SQL, row: SQL) => sql`(select ${name} from ${licenceRenewals} where ${licenceRenewals.id} = ${row})`;
  const added = sql<number>`coalesce((select sum(${licenceRenewals.addedMs}) from ${licenceRenewals} where ${licenceRenewals.refundClaim} = ${claim} and ${licenceRenewals.licenceId} = ${licences.id}), 0)`;
  const stoppedAt = sql`coalesce(${licences.pausedAt}, ${now})`;
  const taken = sql`select ${licenceRenewals.licenceId} from ${licenceRenewals} where ${licenceRenewals.refundClaim} = ${claim}`;
  return [
    db
      .update(licenceRenewals)
      .set({ refundedAt: now, refundClaim: claim })
      .where(and(selected, isNull(licenceRenewals.refundedAt), when)),
    db
      .update(licences)
      .set({
        expiresAt: sql`case
          when ${toLifetime} is not null then ${column(sql`${licenceRenewals.previousExpiresAt}`, toLifetime)}
          when ${licences.expiresAt} is null then null
          else min(${licences.expiresAt}, max(${stoppedAt}, ${licences.expiresAt} - ${added})) end`,
        plan: sql`coalesce(${column(sql`${licenceRenewals.fromPlan}`, firstUpgrade)}, ${licences.plan})`,
        entitlements: sql`coalesce(${column(sql`${licenceRenewals.previousEntitlements}`, firstUpgrade)}, ${licences.entitlements})`,
      })
      .where(sql`${licences.id} in (${taken})`),
    db
      .update(userSubscriptions)
      .set({
        expiryDate: sql`(select ${licences.expiresAt} from ${licences} where ${licences.productCodeId} = ${userSubscriptions.productCodeId})`,
        variantTitle: sql`coalesce((select ${licenceRenewals.previousVariantTitle} from ${licenceRenewals} join ${licences} on ${licences.id} = ${licenceRenewals.licenceId} where ${licences.productCodeId} = ${userSubscriptions.productCodeId} and ${licenceRenewals.refundClaim} = ${claim} and ${licenceRenewals.kind} = 'upgrade' order by ${licenceRenewals.createdAt} limit 1), ${userSubscriptions.variantTitle})`,
      })
      .where(
        sql`${userSubscriptions.productCodeId} in (select ${licences.productCodeId} from ${licences} where ${licences.id} in (${taken}))`,
      ),
  ];
}

/** The renewals an order's refunded line paid for, newest unit first, `count` of them (a condition for takeBackStatements). */
export const renewalsOfLine = (orderKey: string, lineId: string, count: SQL | number) =>
  sql`${licenceRenewals.id} in (select ${licenceRenewals.id} from ${licenceRenewals} where ${licenceRenewals.orderKey} = ${orderKey} and ${licenceRenewals.orderLineId} = ${lineId} and ${licenceRenewals.refundedAt} is null order by ${licenceRenewals.unitIndex} desc limit ${count})`;

/** Every renewal an order paid for (a cancellation). */
export const renewalsOfOrder = (orderKey: string) => eq(licenceRenewals.orderKey, orderKey);

/** The renewals a take-back run marked (read after its batch). */
export const takenBack = (db: Db, claim: string) => db.select().from(licenceRenewals).where(eq(licenceRenewals.refundClaim, claim));

/** A licence's history: the sale that made it, then every renewal and upgrade, with its order (oldest first). */
export function licenceHistoryRead(db: Db, licenceIds: number[]) {
  return read(
    [db.select().from(licenceRenewals).where(inArray(licenceRenewals.licenceId, licenceIds)).orderBy(licenceRenewals.createdAt)],
    ([rows]) => {
      const byLicence = new Map<number, RenewalRow[]>();
      for (const row of rows) byLicence.set(row.licenceId, [...(byLicence.get(row.licenceId) ?? []), row]);
      return byLicence;
    },
  );
}
