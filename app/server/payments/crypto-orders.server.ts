// Crypto orders (decision 032): a member opens one for a plan's key or a reseller top-up; it gets
// a quote in the coin and an address of its own from the shop's wallet. The chain watcher
// (crypto-watch.server) moves it along as payments show up; once paid, the fulfilment queue hands
// out its key, or credits the top-up, exactly once. Orders that need a person (underpaid past
// expiry, paid late, overpaid, and those from before on-chain checks) wait in the admin's queue.
import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, ne, notInArray, or, sql } from "drizzle-orm";
import { type CryptoCoin, type FulfilCryptoOrderInput, type OpenCryptoOrderInput, paymentUri } from "~/lib/crypto-orders";
import { orderKey } from "~/lib/orders";
import type { TopUpInput } from "~/lib/schemas/reseller";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import { checkLowStock } from "../fulfilment/stock-alerts.server";
import { assignCode, codeOfUnit, releaseCode } from "../fulfilment/stock.server";
import { randomString } from "../platform/tokens.server";
import { qrDataUrl } from "../platform/qr.server";
import { type Db, isUniqueViolation } from "../platform/db/client.server";
import type { JobQueue } from "../platform/job-queue.server";
import type { MailingDeps } from "../platform/mail.server";
import { cryptoOrders, licences, productCodes, resellerAccounts, resellerLedger, walletCursors } from "../platform/db/schema.server";
import { mailCryptoKey } from "../fulfilment/buyer-emails.server";
import { recordSale } from "../fulfilment/licences.server";
import type { CryptoSetup, InvoiceRules } from "./crypto-setup.server";
import { receiveAddress } from "./wallet.server";

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
  return { units: over, cents: order.rateCents === null ? null : Math.round((over * order.rateCents) / 100_000_000), handled: order.review !== "overpaid" };
}

/** What the buyer may see of an order (no internal ids, no other member's data). */
export function cryptoOrderView(order: CryptoOrder, rules: Pick<InvoiceRules, "confirmations">, now = Date.now()) {
  const open = (order.status === "pending" || order.status === "underpaid") && order.expiresAt !== null && order.expiresAt > now;
  const dueUnits = order.amountUnits === null ? null : Math.max(order.amountUnits - order.receivedUnits, 0);
  const uri = open && dueUnits ? paymentUri(order.cryptoType, order.walletAddress, dueUnits) : null;
  // Expired with nothing seen: the tracker keeps looking a while for money sent just too late.
  const watchedLate = order.status === "expired" && order.review === null && order.addressIndex !== null && order.paidAt === null && watchedLateByBuyer(order, now);
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
    qr: uri ? qrDataUrl(uri) : null,
    productTitle: order.productTitle,
    variantTitle: order.variantTitle,
    transactionId: order.transactionId,
    productCode: order.status === "complete" ? order.productCode : null,
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
}

/** The next receive index of the wallet account: each is handed out once, in order. */
async function nextAddressIndex(db: Db, account: string): Promise<number> {
  const bump = { nextIndex: sql`${walletCursors.nextIndex} + 1` };
  const bumped = await db.update(walletCursors).set(bump).where(eq(walletCursors.account, account)).returning({ nextIndex: walletCursors.nextIndex }).get();
  if (bumped) return bumped.nextIndex - 1;
  // The wallet's first order, or its cursor was lost (a restore, a hand edit): carry on after the
  // highest index an order holds, so no address is handed out twice.
  const row = await db
    .insert(walletCursors)
    .values({ account, nextIndex: sql`(select coalesce(max(${cryptoOrders.addressIndex}), -1) + 2 from ${cryptoOrders} where ${cryptoOrders.walletAccount} = ${account})` })
    .onConflictDoUpdate({ target: walletCursors.account, set: bump })
    .returning({ nextIndex: walletCursors.nextIndex })
    .get();
  return row.nextIndex - 1;
}

/** Smallest units of the coin for `cents` US cents at `rateCents` per coin, rounded up. */
const unitsFor = (cents: number, rateCents: number) => Math.ceil((cents * 100_000_000) / rateCents);

const openOrders = (userId: string, now: number) => and(eq(cryptoOrders.userId, userId), inArray(cryptoOrders.status, ["pending", "underpaid"]), gt(cryptoOrders.expiresAt, now));

/** Reusing an open order makes sense only while its quote has this long left to run. */
const REUSE_MIN_LEFT_MS = 10 * 60_000;

/**
 * Opens an invoice for the purchase in the coin: reuses the member's untouched order for the same
 * thing while its quote has time left, otherwise quotes the amount at the current rate and gives
 * it the wallet's next address. The member's open orders are capped.
 */
async function openInvoice(deps: InvoiceDeps, viewer: Viewer, purchase: Purchase, coin: CryptoCoin, now: number): Promise<Result<CryptoOrder>> {
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

/** Opens (or reuses) an order for the variant at the catalogue's price. */
export async function openCryptoOrder(deps: InvoiceDeps, catalogue: Catalogue, viewer: Viewer, { variantId, coin }: OpenCryptoOrderInput, now = Date.now()): Promise<Result<CryptoOrder>> {
  const match = (await allVariants(catalogue)).find((v) => v.variant.id === variantId);
  if (!match) return fail("not-found", "This plan is not for sale");
  if (!match.variant.availableForSale) return fail("conflict", "This plan is sold out");
  const purchase: Purchase = {
    purpose: "key",
    productTitle: match.product.title,
    variantTitle: match.variant.title,
    variantId,
    amountCents: Math.round(Number(match.variant.price.amount) * 100),
    currency: match.variant.price.currencyCode,
  };
  return openInvoice(deps, viewer, purchase, coin, now);
}

/** Top-up orders name no plan; this marks them in the plan's place. */
export const TOP_UP_VARIANT = "reseller-balance";

/** Opens (or reuses) an order that tops up the member's reseller balance by the amount. */
export function openTopUp(deps: InvoiceDeps, viewer: Viewer, { amount, coin }: Pick<TopUpInput, "amount" | "coin">, now = Date.now()): Promise<Result<CryptoOrder>> {
  const purchase: Purchase = { purpose: "top-up", productTitle: "Reseller balance", variantTitle: "Top-up", variantId: TOP_UP_VARIANT, amountCents: amount, currency: "USD" };
  return openInvoice(deps, viewer, purchase, coin, now);
}

/** The order behind a number, if the viewer may see it: its owner, or an admin. */
export async function findOrderFor(db: Db, viewer: Viewer, orderNumber: string): Promise<Result<CryptoOrder>> {
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get();
  // Someone else's order answers exactly like a missing one.
  if (!order || (order.userId !== viewer.id && !viewer.isAdmin)) return fail("not-found", "No order found with this order number");
  return ok(order);
}

/** The admin's queue: orders a person has to look at, the longest waiting first (at most 200 at a time). */
export function ordersNeedingReview(db: Db) {
  return db
    .select()
    .from(cryptoOrders)
    .where(or(isNotNull(cryptoOrders.review), eq(cryptoOrders.status, "submitted")))
    .orderBy(asc(cryptoOrders.updatedAt))
    .limit(200);
}

export function ordersOf(db: Db, userId: string) {
  return db.select().from(cryptoOrders).where(eq(cryptoOrders.userId, userId)).orderBy(desc(cryptoOrders.createdAt)).limit(20);
}

/** The queue message that hands out a crypto order's key: the admin's typed-in one, or the next in stock. */
export interface CryptoOrderJob {
  kind: "crypto-order";
  orderNumber: string;
  code: string | null;
}

/**
 * Whether `code` can no longer be the key of an order for `variantId`: a licence names it (a
 * reseller's key, or one sold before), it was sold, or it is stock of another plan.
 */
async function codeTaken(db: Db, code: string, variantId: string): Promise<boolean> {
  const [licence, stocked] = await Promise.all([
    db.select({ id: licences.id }).from(licences).where(eq(licences.key, code)).get(),
    db.select({ variantId: productCodes.variantId, isUsed: productCodes.isUsed }).from(productCodes).where(eq(productCodes.code, code)).get(),
  ]);
  return Boolean(licence) || (stocked !== undefined && (stocked.isUsed || stocked.variantId !== variantId));
}

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
const ADMIN_FULFILLABLE = ["submitted", ...CLOSED_UNPAID_STATES] as const;

const notAwaiting = (order: CryptoOrder) => fail("conflict", `Order ${order.orderNumber} is ${order.status}, not awaiting fulfilment`);

/**
 * Admin: fulfils an order the chain did not settle (a typed-in transaction id from before on-chain
 * checks, an underpaid or late payment the admin accepts) with a typed-in key or the next in stock;
 * a top-up is credited. What the admin can still correct is checked now; the key itself is handed
 * out and e-mailed by the fulfilment queue, the one way keys leave the shop (decision 031).
 */
export async function fulfilCryptoOrder(
  deps: { db: Db; queue: JobQueue<CryptoOrderJob> },
  admin: Viewer,
  input: FulfilCryptoOrderInput,
  now = Date.now(),
): Promise<Result<CryptoOrder>> {
  const { db } = deps;
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, input.orderId)).get();
  if (!order) return fail("not-found", "Unknown order");
  const awaiting = (ADMIN_FULFILLABLE as readonly string[]).includes(order.status) && order.paidAt === null && (order.status === "submitted" || order.review !== null);
  if (!awaiting) return notAwaiting(order);
  if (order.purpose === "top-up") {
    if (input.source === "manual") return fail("invalid", "A top-up is credited to the balance; it takes no product code", { field: "code" });
  } else if (input.source === "stock") {
    const inStock = await db
      .select({ id: productCodes.id })
      .from(productCodes)
      .where(and(eq(productCodes.variantId, order.variantId), eq(productCodes.isUsed, false)))
      .get();
    if (!inStock) return fail("conflict", `No codes in stock for ${order.productTitle} - ${order.variantTitle}`);
  } else if (await codeTaken(db, input.code, order.variantId)) {
    return fail("conflict", "This code has already been sold", { field: "code" });
  }
  // Marked paid by the admin's decision, in one conditional step: a second click, or the chain
  // watcher at the same moment, finds it taken.
  const marked = await db
    .update(cryptoOrders)
    .set({ paidAt: now, review: null, updatedAt: now })
    .where(and(eq(cryptoOrders.id, order.id), eq(cryptoOrders.status, order.status), isNull(cryptoOrders.paidAt)))
    .returning()
    .get();
  if (!marked) return notAwaiting(order);
  try {
    await deps.queue.send({ kind: "crypto-order", orderNumber: order.orderNumber, code: input.source === "manual" ? input.code : null });
  } catch (error) {
    console.error("Could not queue a crypto order's fulfilment:", error);
    await db
      .update(cryptoOrders)
      .set({ paidAt: null, review: order.review, updatedAt: now })
      .where(and(eq(cryptoOrders.id, order.id), eq(cryptoOrders.paidAt, now)));
    return fail("unavailable", "The fulfilment queue is not available right now; please try again in a moment");
  }
  await audit(db, admin.id, "crypto-order.fulfil", orderKey("crypto", order.orderNumber), { source: input.source, status: order.status, review: order.review });
  return ok(marked);
}

/** The one unit a crypto order buys: its key is claimed against it, so it has at most one. */
const unitOf = (order: CryptoOrder) => ({ orderId: order.orderNumber, lineId: "crypto", unitIndex: 0, variantId: order.variantId, email: order.customerEmail });

/**
 * A cancelled order gives back a key claimed for it: stock returns to stock; a typed-in key that
 * was only recorded for this order (written and sold in one step, so never stocked) is forgotten.
 */
async function releaseKeyOf(db: Db, order: CryptoOrder): Promise<void> {
  const key = await codeOfUnit(db, unitOf(order));
  if (key) await releaseCode(db, key.id, order.orderNumber, key.createdAt === key.usedAt);
}

/** States a paid order can be settled from: paid by the chain (processing), or by an admin's decision. */
export const SETTLEABLE = ["processing", ...ADMIN_FULFILLABLE] as const;

/**
 * The fulfilment queue's half: completes a paid order. A key order gets a key (the one named, or
 * the next in stock for its plan), marked sold, recorded as the buyer's licence and e-mailed; a
 * top-up is credited to the reseller balance. Safe to run twice or after an interrupted run: a
 * unit keeps the key it was given, a top-up is credited once (its ledger entry is unique), a
 * completed order only gets what it still lacks (licence, e-mail), a cancelled one gives back any
 * key claimed for it. Throws when the key cannot be handed out now (no stock, the named key is
 * taken), so the queue retries and, in the end, shows the admin why.
 */
export async function settleCryptoOrder(deps: MailingDeps, job: CryptoOrderJob, now = Date.now()): Promise<void> {
  const { db } = deps;
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, job.orderNumber)).get();
  if (!order) throw new Error(`Crypto order ${job.orderNumber} does not exist`);
  if (order.purpose === "top-up") return settleTopUp(db, order, now);
  const unit = unitOf(order);
  if (order.status === "complete") {
    const key = await codeOfUnit(db, unit);
    if (key) await deliverCryptoKey(deps, order, key, key.usedAt ?? now);
    return;
  }
  if (order.status === "cancelled") return releaseKeyOf(db, order);
  if (order.paidAt === null) return;

  let key = await codeOfUnit(db, unit);
  try {
    if (key) {
      // An earlier run gave the unit its key; this one finishes the job.
    } else if (job.code === null) {
      const assignment = await assignCode(db, unit, { now });
      if (assignment.kind === "out-of-stock") throw new Error(`No codes in stock for ${order.productTitle} - ${order.variantTitle}`);
      key = assignment.code;
    } else {
      const taken = () => new Error(`The code typed in for order ${order.orderNumber} has already been sold`);
      if (await codeTaken(db, job.code, order.variantId)) throw taken();
      const claim = { isUsed: true, usedAt: now, customerEmail: order.customerEmail, orderId: order.orderNumber, orderLineId: "crypto", unitIndex: 0 };
      // A typed code from stock is marked sold; a code we never stocked is recorded as sold.
      key =
        (await db
          .update(productCodes)
          .set(claim)
          .where(and(eq(productCodes.variantId, order.variantId), eq(productCodes.code, job.code), eq(productCodes.isUsed, false)))
          .returning()
          .get()) ??
        (await db
          .insert(productCodes)
          .values({ variantId: order.variantId, variantTitle: `${order.productTitle} - ${order.variantTitle}`, code: job.code, createdAt: now, ...claim })
          .onConflictDoNothing({ target: productCodes.code })
          .returning()
          .get());
      if (!key) throw taken();
    }
  } catch (error) {
    // The unit's unique index: a run at the same time gave it its key first; this one finishes.
    if (!isUniqueViolation(error)) throw error;
    key = await codeOfUnit(db, unit);
    if (!key) throw error;
  }

  const completed = await completeOrder(db, order, key.code, now);
  if (completed) {
    await checkLowStock(deps, { id: order.variantId, title: `${order.productTitle} - ${order.variantTitle}` }, now);
    return deliverCryptoKey(deps, completed, key, now);
  }
  // Cancelled while the key was being claimed: the key goes back. (Completed by a run at the same
  // time: that run delivers it.)
  const current = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get();
  if (current?.status === "cancelled") await releaseKeyOf(db, current);
}

/** paid -> complete, once: only from a state a paid order can be in. */
function completeOrder(db: Db, order: CryptoOrder, productCode: string | null, now: number) {
  return db
    .update(cryptoOrders)
    .set({ status: "complete", productCode, updatedAt: now })
    .where(and(eq(cryptoOrders.id, order.id), inArray(cryptoOrders.status, SETTLEABLE), isNotNull(cryptoOrders.paidAt)))
    .returning()
    .get();
}

/**
 * Credits a paid top-up to the buyer's reseller balance. The ledger entry and the balance change
 * are one transaction, and the balance only moves when the entry is new: never twice.
 */
async function settleTopUp(db: Db, order: CryptoOrder, now: number): Promise<void> {
  if (order.paidAt === null || order.status === "cancelled") return;
  await db.insert(resellerAccounts).values({ userId: order.userId, balanceCents: 0, createdAt: now }).onConflictDoNothing();
  const credited = sql`exists (select 1 from ${resellerLedger} where ${resellerLedger.kind} = 'top-up' and ${resellerLedger.reference} = ${order.orderNumber})`;
  // Checked inside the transaction: an admin's cancel that lands after the read above wins.
  const stillPaid = and(eq(cryptoOrders.id, order.id), ne(cryptoOrders.status, "cancelled"), isNotNull(cryptoOrders.paidAt));
  await db.batch([
    db
      .update(resellerAccounts)
      .set({ balanceCents: sql`${resellerAccounts.balanceCents} + ${order.amountCents}` })
      .where(and(eq(resellerAccounts.userId, order.userId), sql`not ${credited}`, sql`exists (select 1 from ${cryptoOrders} where ${stillPaid})`)),
    db
      .insert(resellerLedger)
      .select(
        db
          .select({
            // Every column, in the table's order (the id is the table's own).
            id: sql<number>`null`.as("id"),
            userId: cryptoOrders.userId,
            kind: sql<"top-up">`'top-up'`.as("kind"),
            amountCents: cryptoOrders.amountCents,
            reference: cryptoOrders.orderNumber,
            createdAt: sql<number>`${now}`.as("created_at"),
          })
          .from(cryptoOrders)
          .where(stillPaid),
      )
      .onConflictDoNothing(),
  ]);
  if (order.status !== "complete") await completeOrder(db, order, null, now);
}

/** A completed order's key becomes the buyer's licence and subscription, and is e-mailed (once). */
async function deliverCryptoKey(deps: MailingDeps, order: CryptoOrder, key: { id: number; code: string }, purchasedAt: number) {
  await recordSale(deps.db, { email: order.customerEmail, userId: order.userId }, {
    codeId: key.id,
    code: key.code,
    productTitle: order.productTitle,
    variantTitle: order.variantTitle,
    priceAmount: (order.amountCents / 100).toFixed(2),
    priceCurrency: order.currency,
    purchasedAt,
    orderId: order.orderNumber,
  });
  await mailCryptoKey(deps, order, key.code);
}

/**
 * Admin: closes an order that will not be settled (refunded outside the shop, or abandoned). One
 * audit entry, under the order, with the reason when the admin gave one.
 */
export async function cancelCryptoOrder(db: Db, admin: Viewer, orderId: string, why: { reason?: string; ip?: string | null } = {}, now = Date.now()): Promise<Result<CryptoOrder>> {
  const cancelled = await db
    .update(cryptoOrders)
    .set({ status: "cancelled", review: null, updatedAt: now })
    .where(and(eq(cryptoOrders.id, orderId), notInArray(cryptoOrders.status, ["complete", "cancelled"])))
    .returning()
    .get();
  if (!cancelled) return fail("conflict", "Completed or cancelled orders cannot be cancelled");
  // A fulfilment that broke halfway may have claimed a key already.
  await releaseKeyOf(db, cancelled);
  await audit(db, admin.id, "crypto-order.cancel", orderKey("crypto", cancelled.orderNumber), why.reason ? { reason: why.reason } : {}, why.ip ?? null);
  return ok(cancelled);
}

/** Admin: an overpaid order was settled and the difference dealt with; it leaves the queue. */
export async function resolveCryptoOrder(db: Db, admin: Viewer, orderId: string, now = Date.now()): Promise<Result<CryptoOrder>> {
  const resolved = await db
    .update(cryptoOrders)
    .set({ review: null, updatedAt: now })
    .where(and(eq(cryptoOrders.id, orderId), eq(cryptoOrders.status, "complete"), eq(cryptoOrders.review, "overpaid")))
    .returning()
    .get();
  if (!resolved) return fail("conflict", "Only a completed, overpaid order can be marked as handled");
  await audit(db, admin.id, "crypto-order.resolve", orderKey("crypto", resolved.orderNumber), { receivedUnits: resolved.receivedUnits, amountUnits: resolved.amountUnits });
  return ok(resolved);
}
