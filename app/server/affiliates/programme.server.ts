// The affiliate programme's members: a member applies with the code they chose, staff approve
// (setting the commission and discount), decline or pause them, and a code (whatever its case)
// names the affiliate a referral belongs to. Only an approved affiliate's code refers anyone, and
// nobody is referred by their own (decision 058).
import { and, eq, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { AffiliateState } from "~/lib/affiliates";
import type { ApplyInput, StaffAffiliateInput } from "~/lib/schemas/affiliates";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import { type Db, isUniqueViolation } from "../platform/db/client.server";
import { affiliateClicks, affiliates, users } from "../platform/db/schema.server";

export type Affiliate = typeof affiliates.$inferSelect;

/** What a purchase carries when a referral applies: whose it is, and the buyer's discount. */
export interface Referral {
  affiliateId: string;
  code: string;
  discountRate: number;
  /** The discount code the card checkout applies (Shopify's, as staff named it, or the code). */
  discountCode: string;
}

export const affiliateOf = (db: Db, userId: string) => db.select().from(affiliates).where(eq(affiliates.userId, userId)).get();

/** A member applies with the code they chose; one application per member. */
export async function applyAsAffiliate(
  db: Db,
  viewer: Viewer,
  input: Omit<ApplyInput, "intent">,
  now = Date.now(),
): Promise<Result<Affiliate>> {
  if (await affiliateOf(db, viewer.id)) return fail("conflict", "You have already applied");
  try {
    const row = await db
      .insert(affiliates)
      .values({
        userId: viewer.id,
        code: input.code,
        channel: input.channel,
        audience: input.audience,
        pitch: input.pitch,
        status: "pending",
        appliedAt: now,
      })
      .returning()
      .get();
    return ok(row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Two sends of the form at once: the first made the application.
    if (await affiliateOf(db, viewer.id)) return fail("conflict", "You have already applied");
    return fail("conflict", "This code is taken: choose another", { field: "code" });
  }
}

type Decision = Exclude<StaffAffiliateInput, { intent: "mark-paid" }>;

/** The states each decision moves an affiliate from, and to. */
const TRANSITIONS: Record<Decision["intent"], { from: AffiliateState[]; to: AffiliateState }> = {
  approve: { from: ["pending", "declined", "approved", "paused"], to: "approved" },
  decline: { from: ["pending"], to: "declined" },
  pause: { from: ["approved"], to: "paused" },
  resume: { from: ["paused"], to: "approved" },
};

/**
 * Staff: approve (with the rates), decline, pause or resume an affiliate; audited. The decision is
 * taken only from the state the member of staff saw (`from`), in one conditional statement
 * (decision 083): of two staff deciding at once, or one deciding on a page another has since
 * changed, one wins and the other is told who decided.
 */
export async function decideAffiliate(
  db: Db,
  staff: Viewer,
  input: Decision,
  ip: string | null,
  now = Date.now(),
): Promise<Result<Affiliate>> {
  const { from, to } = TRANSITIONS[input.intent];
  const rates =
    input.intent === "approve"
      ? { commissionRate: input.commissionRate, discountRate: input.discountRate, shopifyDiscountCode: input.shopifyDiscountCode || null }
      : {};
  const changed = from.includes(input.from)
    ? await db
        .update(affiliates)
        .set({ status: to, decidedAt: now, decidedBy: staff.id, ...rates })
        .where(and(eq(affiliates.userId, input.affiliate), eq(affiliates.status, input.from)))
        .returning()
        .get()
    : undefined;
  if (!changed) return decidedAlready(db, input);
  await audit(db, staff.id, `affiliate.${input.intent}`, changed.userId, { code: changed.code, ...rates }, ip);
  return ok(changed);
}

/** Why a decision changed nothing: the affiliate is no longer in the state it was taken on (and who moved it), or cannot be decided so. */
async function decidedAlready(db: Db, input: Decision): Promise<Result<never>> {
  const existing = await db
    .select({ status: affiliates.status, decider: users.email })
    .from(affiliates)
    .leftJoin(users, eq(users.id, affiliates.decidedBy))
    .where(eq(affiliates.userId, input.affiliate))
    .get();
  if (!existing) return fail("not-found", "No such affiliate");
  if (existing.status !== input.from && existing.status !== "pending") {
    return fail(
      "conflict",
      `This affiliate was already ${existing.status} by ${existing.decider ?? "another member of staff"}: reload to see it`,
    );
  }
  return fail("conflict", `This affiliate is ${existing.status}: it cannot be done now`);
}

/** The approved affiliate a code (whatever its case) or an id names, with their e-mail. */
function approvedAffiliate(db: Db, by: { code: string } | { id: string }) {
  const named = "code" in by ? sql`lower(${affiliates.code}) = lower(${by.code})` : eq(affiliates.userId, by.id);
  return db
    .select({ affiliate: affiliates, email: users.email })
    .from(affiliates)
    .innerJoin(users, eq(users.id, affiliates.userId))
    .where(and(named, eq(affiliates.status, "approved")))
    .get();
}

/** A visit through an affiliate's link: counted, and the code as the affiliate chose it; null for no approved affiliate's. */
export async function followReferralLink(db: Db, code: string, now = Date.now()): Promise<string | null> {
  const found = await approvedAffiliate(db, { code });
  if (!found) return null;
  await db.insert(affiliateClicks).values({ affiliateId: found.affiliate.userId, at: now });
  return found.affiliate.code;
}

/**
 * The affiliate a purchase is referred by: none for an unknown, unapproved or paused one, and
 * none when the buyer is the affiliate (the same account, or the same e-mail address).
 */
export async function referrer(
  db: Db,
  by: { code: string } | { id: string },
  buyer: { id?: string | null; email: string },
): Promise<Affiliate | null> {
  const found = await approvedAffiliate(db, by);
  if (!found) return null;
  const self = found.affiliate.userId === buyer.id || found.email.toLowerCase() === buyer.email.trim().toLowerCase();
  return self ? null : found.affiliate;
}

/** The referral a code gives this buyer, if any. */
export async function referralFor(db: Db, code: string | null, buyer: { id?: string | null; email: string }): Promise<Referral | null> {
  const affiliate = code ? await referrer(db, { code }, buyer) : null;
  return (
    affiliate && {
      affiliateId: affiliate.userId,
      code: affiliate.code,
      discountRate: affiliate.discountRate,
      discountCode: affiliate.shopifyDiscountCode ?? affiliate.code,
    }
  );
}

/**
 * A deleted account's place in the programme (decision 099): what it wrote when it applied goes,
 * its code no longer refers anyone (it names the account, not the person), and an approved
 * affiliate is paused so nothing new is earned. The ledger, money that moved, stays.
 */
export const affiliateOfDeletedAccount = (db: Db, userId: string) =>
  db
    .update(affiliates)
    .set({
      code: `deleted-${userId}`,
      channel: "",
      audience: "",
      pitch: "",
      shopifyDiscountCode: null,
      status: sql`case when ${affiliates.status} = 'approved' then 'paused' else ${affiliates.status} end`,
    })
    .where(eq(affiliates.userId, userId));
