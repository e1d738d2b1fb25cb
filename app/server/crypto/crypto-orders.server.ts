// Crypto orders (decision 032): a member opens one for a plan's key or a reseller top-up; it gets
// a quote in the coin and an address of its own from the shop's wallet. The chain watcher
// (crypto-watch.server) moves it along as payments show up; once paid, the job queue
// settles it (crypto-settlement.server); orders that need a person (underpaid past expiry, paid
// late, overpaid, and those from before on-chain checks) wait in the admin's review
// (crypto-review.server). This module opens orders, names their states and shows them to the buyer.
import { and, count, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { type CryptoCoin, type OpenCryptoOrderInput, paymentUri } from "~/lib/crypto-orders";
import type { TopUpInput } from "~/lib/schemas/reseller";
import { fail, ok, type Result } from "~/lib/result";
import { can } from "~/lib/roles";
import type { Viewer } from "~/lib/viewer";
import { discounted } from "~/lib/schemas/reseller";
import { referralFor } from "../affiliates/programme.server";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import { randomString } from "../platform/tokens.server";
import { qrDataUrl } from "../platform/qr.server";
import type { Db } from "../platform/db/client.server";
import { cryptoOrders, walletCursors } from "../platform/db/schema.server";
import type { CryptoSetup, InvoiceRules } from "./crypto-setup.server";
import { receiveAddress } from "./wallet.server";
import type { LicencePlan } from "~/lib/plans";
import { ownedLicence, priceFor } from "../renewals/renewal-terms.server";

export const MAX_OPEN_ORDERS_PER_MEMBER = 5;

export type CryptoOrder = typeof cryptoOrders.$inferSelect;

/** A payment to an order's address as the chain showed it at the last check. */
export interface SeenPayment {
  txid: string;
  units: number;
  height: number | null;
}

/** The states in which an order still waits for its payment. */
export const OPEN_STATES = ["pending", "underpaid", "processing"] as const;

/** Expired orders the chain is still read for (late money), and that an admin may fulfil from review. */
export const CLOSED_UNPAID_STATES = ["expired", "paid-late"] as const;

/**
 * For a day after its quote ran out, an order the buyer has open on the tracker is read like an
 * open one (at most every 10 s), so money sent just too late shows as paid late at once; after
 * that only the cron's hourly sweep looks.
 */
const BUYER_LATE_WATCH_MS = 24 * 60 * 60_000;

/** Whether the buyer's tracker still reads an order whose quote ran out (see BUYER_LATE_WATCH_MS). */
export function watchedLateByBuyer(order: Pick<CryptoOrder, "expiresAt">, now: number): boolean {
  return order.expiresAt !== null && now < order.expiresAt + BUYER_LATE_WATCH_MS;
}

/** States an admin may fulfil from: orders from before on-chain checks, and those in review but not settled. */
export const ADMIN_FULFILLABLE = ["submitted", ...CLOSED_UNPAID_STATES] as const;

/** States a paid order can be settled from: paid by the chain (processing), or by an admin's decision. */
export const SETTLEABLE = ["processing", ...ADMIN_FULFILLABLE] as const;

/**
 * What is due, in smallest units, for the order to count as paid: the amount less the tolerance
 * (none for a top-up, which credits the whole amount).
 */
export function paidThreshold(order: Pick<CryptoOrder, "amountUnits" | "purpose">, rules: Pick<InvoiceRules, "tolerancePercent">): number {
  const tolerance = order.purpose === "top-up" ? 0 : rules.tolerancePercent;
  return Math.ceil(((order.amountUnits ?? 0) * (100 - tolerance)) / 100);
}

/**
 * What the buyer sent beyond the amount of a paid order, in the coin's smallest units and (at the
 * quote's rate) in US cents, and whether the shop has dealt with it yet; null when nothing was over.
 */
function overpayment(order: CryptoOrder) {
  const over = order.amountUnits === null || order.paidAt === null ? 0 : order.receivedUnits - order.amountUnits;
  if (over <= 0) return null;
  return {
    units: over,
    cents: order.rateCents === null ? null : Math.round((over * order.rateCents) / 100_000_000),
    handled: order.review !== "overpaid",
  };
}

/**
 * What the buyer may see of an order (no internal ids, no other member's data). `forBuyer` false:
 * staff reading someone else's order, who see all of it but the key (they reveal that on the
 * order's page, where the reveal is audited).
 */
export async function cryptoOrderView(
  order: CryptoOrder,
  rules: Pick<InvoiceRules, "confirmations">,
  { now = Date.now(), forBuyer = true } = {},
) {
  const open = (order.status === "pending" || order.status === "underpaid") && order.expiresAt !== null && order.expiresAt > now;
  const dueUnits = order.amountUnits === null ? null : Math.max(order.amountUnits - order.receivedUnits, 0);
  const uri = open && dueUnits ? paymentUri(order.cryptoType, order.walletAddress, dueUnits) : null;
  // Expired with nothing seen: the tracker keeps looking a while for money sent just too late.
  const watchedLate =
    order.status === "expired" &&
    order.review === null &&
    order.addressIndex !== null &&
    order.paidAt === null &&
    watchedLateByBuyer(order, now);
  return {
    orderNumber: order.orderNumber,
    purpose: order.purpose,
    status: order.status,
    coin: order.cryptoType,
    walletAddress: order.walletAddress,
    amountCents: order.amountCents,
    amountUnits: order.amountUnits,
    receivedUnits: order.receivedUnits,
    dueUnits,
    rateCents: order.rateCents,
    rateIsDemo: order.rateIsDemo,
    expiresAt: order.expiresAt,
    confirmations: order.confirmations,
    paid: order.paidAt !== null,
    overpaid: overpayment(order),
    watchedLate,
    confirmationsNeeded: rules.confirmations,
    payments: (JSON.parse(order.payments) as SeenPayment[]).map((p) => ({ txid: p.txid, units: p.units, confirmed: p.height !== null })),
    paymentUri: uri,
    qr: uri ? await qrDataUrl(uri) : null,
    productTitle: order.productTitle,
    variantTitle: order.variantTitle,
    transactionId: order.transactionId,
    productCode: order.status === "complete" && forBuyer ? order.productCode : null,
    // An order that renews a licence (decision 090) hands out no key: paid, it extends that licence.
    renewsLicence: order.renewsLicenceId !== null,
    keyHeldBack: order.status === "complete" && !forBuyer && order.productCode !== null,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

/** `CRYPTO-` and twelve characters from the CSPRNG: about 62 bits, not guessable. */
export function newOrderNumber(): string {
  return `CRYPTO-${randomString(12)}`;
}

export interface InvoiceDeps {
  db: Db;
  setup: CryptoSetup;
}

/** What an order is for: a plan's key, or a top-up of the reseller balance. */
interface Purchase {
  purpose: CryptoOrder["purpose"];
  productTitle: string;
  variantTitle: string;
  variantId: string;
  amountCents: number;
  currency: string;
  /** The affiliate who referred it (its amount is already discounted), or null. */
  referredBy: string | null;
  /** The licence it renews or upgrades (decision 090), or null for a key of its own. */
  renewsLicenceId?: number | null;
}

/** The next receive index of the wallet account: each is handed out once, in order. */
async function nextAddressIndex(db: Db, account: string): Promise<number> {
  const bump = { nextIndex: sql`${walletCursors.nextIndex} + 1` };
  const bumped = await db
    .update(walletCursors)
    .set(bump)
    .where(eq(walletCursors.account, account))
    .returning({ nextIndex: walletCursors.nextIndex })
    .get();
  if (bumped) return bumped.nextIndex - 1;
  // The wallet's first order, or its cursor was lost (a restore, a hand edit): carry on after the
  // highest index an order holds, so no address is handed out twice.
  const row = await db
    .insert(walletCursors)
    .values({
      account,
      nextIndex: sql`(select coalesce(max(${cryptoOrders.addressIndex}), -1) + 2 from ${cryptoOrders} where ${cryptoOrders.walletAccount} = ${account})`,
    })
    .onConflictDoUpdate({ target: walletCursors.account, set: bump })
    .returning({ nextIndex: walletCursors.nextIndex })
    .get();
  return row.nextIndex - 1;
}

/** Smallest units of the coin for `cents` US cents at `rateCents` per coin, rounded up. */
const unitsFor = (cents: number, rateCents: number) => Math.ceil((cents * 100_000_000) / rateCents);

const openOrders = (userId: string, now: number) =>
  and(eq(cryptoOrders.userId, userId), inArray(cryptoOrders.status, ["pending", "underpaid"]), gt(cryptoOrders.expiresAt, now));

/** Reusing an open order makes sense only while its quote has this long left to run. */
const REUSE_MIN_LEFT_MS = 10 * 60_000;

/**
 * Opens an invoice for the purchase in the coin: reuses the member's untouched order for the same
 * thing while its quote has time left, otherwise quotes the amount at the current rate and gives
 * it the wallet's next address. The member's open orders are capped.
 */
async function openInvoice(
  deps: InvoiceDeps,
  viewer: Viewer,
  purchase: Purchase,
  coin: CryptoCoin,
  now: number,
): Promise<Result<CryptoOrder>> {
  const { db, setup } = deps;
  const wallet = setup.wallets[coin];
  if (!wallet) return fail("unavailable", `${coin} payments are not available right now`);
  // The spot rate is in US dollars; a plan priced otherwise would be quoted wrong.
  if (purchase.currency !== "USD") return fail("unavailable", "Crypto payments are only available for plans priced in US dollars");
  if (purchase.amountCents <= 0) return fail("conflict", "This plan cannot be paid in crypto");
  const reusable = await db
    .select()
    .from(cryptoOrders)
    .where(
      and(
        openOrders(viewer.id, now + REUSE_MIN_LEFT_MS),
        eq(cryptoOrders.status, "pending"),
        eq(cryptoOrders.receivedUnits, 0),
        eq(cryptoOrders.purpose, purchase.purpose),
        eq(cryptoOrders.variantId, purchase.variantId),
        eq(cryptoOrders.amountCents, purchase.amountCents),
        eq(cryptoOrders.cryptoType, coin),
        eq(cryptoOrders.walletAccount, wallet.id),
        purchase.referredBy === null ? isNull(cryptoOrders.referredBy) : eq(cryptoOrders.referredBy, purchase.referredBy),
        purchase.renewsLicenceId ? eq(cryptoOrders.renewsLicenceId, purchase.renewsLicenceId) : isNull(cryptoOrders.renewsLicenceId),
      ),
    )
    .orderBy(desc(cryptoOrders.createdAt))
    .get();
  if (reusable) return ok(reusable);
  const tooMany = () => fail("rate-limited", "You have too many unpaid crypto orders. Pay or wait for one to expire first.");
  const [open] = await db.select({ n: count() }).from(cryptoOrders).where(openOrders(viewer.id, now));
  if ((open?.n ?? 0) >= MAX_OPEN_ORDERS_PER_MEMBER) return tooMany();

  let rateCents: number;
  try {
    rateCents = await setup.rates.usdCentsPerCoin(coin);
  } catch (error) {
    console.error(`No ${coin} exchange rate:`, error);
    return fail("unavailable", `We could not get the ${coin} exchange rate right now. Please try again in a minute.`);
  }
  const addressIndex = await nextAddressIndex(db, wallet.id);
  const order = await db
    .insert(cryptoOrders)
    .values({
      id: crypto.randomUUID(),
      orderNumber: newOrderNumber(),
      userId: viewer.id,
      status: "pending",
      ...purchase,
      customerEmail: viewer.email,
      cryptoType: coin,
      walletAddress: receiveAddress(wallet, addressIndex),
      walletAccount: wallet.id,
      addressIndex,
      amountUnits: unitsFor(purchase.amountCents, rateCents),
      rateCents,
      rateIsDemo: setup.rates.demo,
      expiresAt: now + setup.invoiceMs,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  // Two opened at once may both have passed the count: the one over the cap goes again.
  const [after] = await db.select({ n: count() }).from(cryptoOrders).where(openOrders(viewer.id, now));
  if ((after?.n ?? 0) > MAX_OPEN_ORDERS_PER_MEMBER) {
    await db.delete(cryptoOrders).where(eq(cryptoOrders.id, order.id));
    return tooMany();
  }
  return ok(order);
}

/**
 * Opens (or reuses) an order for the variant at the catalogue's price, less the discount of the
 * affiliate whose code the buyer followed (`referralCode`, from their referral cookie), if any.
 */
export async function openCryptoOrder(
  deps: InvoiceDeps,
  catalogue: Catalogue,
  viewer: Viewer,
  { variantId, coin }: OpenCryptoOrderInput,
  referralCode: string | null = null,
  now = Date.now(),
): Promise<Result<CryptoOrder>> {
  const match = (await allVariants(catalogue)).find((v) => v.variant.id === variantId);
  if (!match) return fail("not-found", "This plan is not for sale");
  if (!match.variant.availableForSale) return fail("conflict", "This plan is sold out");
  const referral = await referralFor(deps.db, referralCode, viewer);
  const listCents = Math.round(Number(match.variant.price.amount) * 100);
  const purchase: Purchase = {
    purpose: "key",
    productTitle: match.product.title,
    variantTitle: match.variant.title,
    variantId,
    amountCents: referral ? discounted(listCents, referral.discountRate) : listCents,
    currency: match.variant.price.currencyCode,
    referredBy: referral?.affiliateId ?? null,
  };
  return openInvoice(deps, viewer, purchase, coin, now);
}

/**
 * Opens (or reuses) an order that renews the member's licence on its plan, or moves it to a longer
 * one (decision 090): the renewal at the plan's price, an upgrade at the lower quote (the unused
 * time of the current plan taken off). Paid, it extends that licence instead of handing out a key.
 */
export async function openCryptoRenewal(
  deps: InvoiceDeps,
  catalogue: Catalogue,
  viewer: Viewer,
  { licenceId, plan, coin }: { licenceId: number; plan: LicencePlan; coin: CryptoCoin },
  now = Date.now(),
): Promise<Result<CryptoOrder>> {
  const licence = await ownedLicence(deps.db, licenceId, viewer.email);
  if (!licence) return fail("not-found", "No such licence on your account");
  const price = await priceFor(catalogue, licence, plan, now);
  if (!price.ok) return price;
  const { offer, priceCents } = price.value;
  const purchase: Purchase = {
    purpose: "key",
    productTitle: offer.productTitle,
    variantTitle: offer.variantTitle,
    variantId: offer.variantId,
    amountCents: priceCents,
    currency: offer.currency,
    referredBy: null,
    renewsLicenceId: licence.id,
  };
  return openInvoice(deps, viewer, purchase, coin, now);
}

/** Top-up orders name no plan; this marks them in the plan's place. */
export const TOP_UP_VARIANT = "reseller-balance";

/** Opens (or reuses) an order that tops up the member's reseller balance by the amount. */
export function openTopUp(
  deps: InvoiceDeps,
  viewer: Viewer,
  { amount, coin }: Pick<TopUpInput, "amount" | "coin">,
  now = Date.now(),
): Promise<Result<CryptoOrder>> {
  // A top-up buys nothing an affiliate earns on.
  const purchase: Purchase = {
    purpose: "top-up",
    productTitle: "Reseller balance",
    variantTitle: "Top-up",
    variantId: TOP_UP_VARIANT,
    amountCents: amount,
    currency: "USD",
    referredBy: null,
  };
  return openInvoice(deps, viewer, purchase, coin, now);
}

/**
 * The order behind a number, if the viewer may see it: its buyer, or staff who may read orders
 * (`orders.view`, as on the back office's order page). `buyer` says which.
 */
export async function findOrderFor(db: Db, viewer: Viewer, orderNumber: string): Promise<Result<{ order: CryptoOrder; buyer: boolean }>> {
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get();
  const buyer = order?.userId === viewer.id;
  // Someone else's order answers exactly like a missing one.
  if (!order || (!buyer && !can(viewer.role, "orders.view"))) return fail("not-found", "No order found with this order number");
  return ok({ order, buyer });
}

export function ordersOf(db: Db, userId: string) {
  return db.select().from(cryptoOrders).where(eq(cryptoOrders.userId, userId)).orderBy(desc(cryptoOrders.createdAt)).limit(20);
}

/**
 * A deleted account's crypto orders, for the deletion's batch (decision 099): kept for accounting
 * under the account's pseudonym, and one still waiting for its first payment is cancelled, since
 * nobody is left to send its key to.
 */
export const cryptoOrdersOfDeletedAccount = (db: Db, account: { userId: string; email: string; pseudonym: string }, now: number) =>
  [
    db
      .update(cryptoOrders)
      .set({ status: "cancelled", updatedAt: now })
      .where(and(eq(cryptoOrders.userId, account.userId), eq(cryptoOrders.status, "pending"), eq(cryptoOrders.receivedUnits, 0))),
    db
      .update(cryptoOrders)
      .set({ customerEmail: account.pseudonym })
      .where(sql`${cryptoOrders.userId} = ${account.userId} or lower(${cryptoOrders.customerEmail}) = lower(${account.email})`),
  ] as const;
