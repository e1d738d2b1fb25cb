// Watching the chain for crypto orders (decision 032). Each check reads the payments to the
// order's address and the chain's height, and moves the order along BTCPay's states in one
// conditional write, so a cron sweep and a buyer's open tracker checking at once cannot both win.
// A paid order's key (or top-up) is handed out by the job queue. A check that cannot reach
// the chain, or gets nonsense back, changes nothing: the next one tries again.
import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { CryptoCoin } from "~/lib/crypto-orders";
import { orderKey } from "~/lib/orders";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { cryptoOrders, failedJobs } from "../platform/db/schema.server";
import { CHECKS_PER_MESSAGE, type JobQueue } from "../platform/job-registry.server";
import {
  CLOSED_UNPAID_STATES,
  type CryptoOrder,
  OPEN_STATES,
  paidThreshold,
  type SeenPayment,
  SETTLEABLE,
  watchedLateByBuyer,
} from "./crypto-orders.server";
import type { CryptoSetup, InvoiceRules } from "./crypto-setup.server";

/** An order's chain is read at most once per this interval, however many trackers are open. */
export const CHECK_INTERVAL_MS = 10_000;
/** Money seen up to one cron interval after the quote ran out still counts as in time: nobody looked in between. */
export const EXPIRY_GRACE_MS = 5 * 60_000;
/**
 * A payment seen in time but still unconfirmed this long after the quote ran out goes to a person:
 * otherwise a buyer could leave a low-fee payment pending and replace it if the price moves.
 */
const CONFIRMATION_DEADLINE_MS = 24 * 60 * 60_000;
/** Expired orders are still looked at, hourly, for a week, so late money is noticed. */
const LATE_WATCH_MS = 7 * 24 * 60 * 60_000;
const LATE_CHECK_INTERVAL_MS = 60 * 60_000;
/** A paid order whose key has not gone out after this long is queued again (the send may have failed). */
const UNSETTLED_AFTER_MS = 10 * 60_000;

export interface WatchDeps {
  db: Db;
  setup: CryptoSetup;
  queue: JobQueue<"crypto-order">;
}

/** What the chain showed for an order's address. */
interface Observation {
  payments: SeenPayment[];
  tip: number;
}

/** The order's next state given what the chain shows, or null when nothing changes. */
function nextState(order: CryptoOrder, seen: Observation, rules: InvoiceRules, now: number): Partial<CryptoOrder> | null {
  const confirmationsOf = (p: SeenPayment) => (p.height === null ? 0 : Math.max(seen.tip - p.height + 1, 0));
  const total = seen.payments.reduce((sum, p) => sum + p.units, 0);
  const settled = seen.payments.filter((p) => confirmationsOf(p) >= rules.confirmations).reduce((sum, p) => sum + p.units, 0);
  // Never 0: an order with nothing due is never found paid by the chain.
  const threshold = Math.max(paidThreshold(order, rules), 1);
  const late = order.expiresAt !== null && now >= order.expiresAt + EXPIRY_GRACE_MS;
  const unconfirmedTooLong = order.expiresAt !== null && now >= order.expiresAt + CONFIRMATION_DEADLINE_MS;
  const evidence = {
    receivedUnits: total,
    confirmations: seen.payments.length === 0 ? 0 : Math.min(...seen.payments.map(confirmationsOf)),
    payments: JSON.stringify(seen.payments),
  };
  let next: Partial<CryptoOrder> = {};
  if ((OPEN_STATES as readonly string[]).includes(order.status)) {
    if (late && order.status !== "processing" && total > order.receivedUnits) next = { status: "paid-late", review: "paid-late" };
    else if (total >= threshold && settled >= threshold)
      next = { status: "processing", paidAt: now, review: total > (order.amountUnits ?? 0) ? "overpaid" : null };
    else if (total >= threshold) next = unconfirmedTooLong ? { status: "paid-late", review: "paid-late" } : { status: "processing" };
    // Short of the amount (or a payment vanished before it was confirmed): open until the quote runs out.
    else if (total > 0) next = late ? { status: "expired", review: "underpaid" } : { status: "underpaid" };
    else next = { status: late ? "expired" : "pending" };
  } else if (order.status === "expired" && order.review === null && total > 0) {
    next = { status: "paid-late", review: "paid-late" };
  }
  const changes = { ...evidence, ...next };
  const changed = Object.entries(changes).some(([field, value]) => order[field as keyof CryptoOrder] !== value);
  if (!changed) return null;
  return { ...changes, firstSeenAt: order.firstSeenAt ?? (total > 0 ? now : null), updatedAt: now };
}

/** Reads the chain for the order, with the tip height shared by the orders of one run. */
async function observe(deps: WatchDeps, order: CryptoOrder, tips: Map<CryptoCoin, Promise<number>>): Promise<Observation> {
  const chain = deps.setup.chain(order.cryptoType);
  let tip = tips.get(order.cryptoType);
  if (!tip) {
    tip = chain.tipHeight();
    tips.set(order.cryptoType, tip);
  }
  const [payments, height] = await Promise.all([chain.paymentsTo(order.walletAddress), tip]);
  return { payments, tip: height };
}

/** Takes the order's turn to be checked: null when it was checked within the interval. */
function claimCheck(db: Db, order: CryptoOrder, now: number) {
  return db
    .update(cryptoOrders)
    .set({ checkedAt: now })
    .where(and(eq(cryptoOrders.id, order.id), or(isNull(cryptoOrders.checkedAt), lte(cryptoOrders.checkedAt, now - CHECK_INTERVAL_MS))))
    .returning()
    .get();
}

/**
 * Orders the chain is still read for: open ones, and expired ones for late money (by the cron
 * whenever its sweep says so; by a buyer's tracker for a day after the quote ran out).
 */
function watchable(order: CryptoOrder, now: number, byBuyer: boolean): boolean {
  if (order.addressIndex === null || order.paidAt !== null) return false;
  if ((OPEN_STATES as readonly string[]).includes(order.status)) return true;
  if (!(CLOSED_UNPAID_STATES as readonly string[]).includes(order.status)) return false;
  return !byBuyer || watchedLateByBuyer(order, now);
}

/**
 * Checks one order against the chain (at most once per interval) and applies what it shows.
 * Returns the order as it is now. When the order becomes paid, its settlement is queued.
 * `byBuyer`: the check is a buyer's open tracker (see `watchable`).
 */
export async function checkOrder(
  deps: WatchDeps,
  order: CryptoOrder,
  { now = Date.now(), tips = new Map<CryptoCoin, Promise<number>>(), byBuyer = false } = {},
): Promise<CryptoOrder> {
  if (!watchable(order, now, byBuyer)) return order;
  const claimed = await claimCheck(deps.db, order, now);
  if (!claimed) return order;
  let seen: Observation;
  try {
    seen = await observe(deps, claimed, tips);
  } catch (error) {
    console.error(`Chain check of ${order.orderNumber} failed; it is tried again later:`, error);
    return claimed;
  }
  const next = nextState(claimed, seen, deps.setup, now);
  if (!next) return claimed;
  const updated = await deps.db
    .update(cryptoOrders)
    .set(next)
    .where(
      and(
        eq(cryptoOrders.id, claimed.id),
        eq(cryptoOrders.status, claimed.status),
        eq(cryptoOrders.updatedAt, claimed.updatedAt),
        isNull(cryptoOrders.paidAt),
      ),
    )
    .returning()
    .get();
  // Another writer moved it first: what it wrote stands.
  if (!updated) return (await deps.db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get()) ?? claimed;
  // Flagged for a person just now (underpaid, overpaid, paid late): once, by the writer that won.
  if (updated.review !== null && updated.review !== claimed.review) {
    await audit(deps.db, null, "crypto-order.review", orderKey("crypto", updated.orderNumber), {
      review: updated.review,
      status: updated.status,
      receivedUnits: updated.receivedUnits,
    });
  }
  if (updated.paidAt !== null) await queueSettlement(deps.queue, updated);
  return updated;
}

async function queueSettlement(queue: JobQueue<"crypto-order">, order: CryptoOrder): Promise<void> {
  try {
    await queue.send({ kind: "crypto-order", orderNumber: order.orderNumber, code: null });
  } catch (error) {
    // The cron sweep queues paid orders that are still waiting (see queueChainChecks).
    console.error(`Could not queue the settlement of ${order.orderNumber}:`, error);
  }
}

/** The queue's half of the sweep: checks a group of orders, sharing tip heights. */
export async function runChainChecks(deps: WatchDeps, orderNumbers: string[], now = Date.now()): Promise<void> {
  const orders = await deps.db.select().from(cryptoOrders).where(inArray(cryptoOrders.orderNumber, orderNumbers));
  const tips = new Map<CryptoCoin, Promise<number>>();
  for (const order of orders) await checkOrder(deps, order, { now, tips });
}

const groupsOf = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** Orders whose chain is worth reading now: open ones each interval, expired ones hourly for a week. */
function dueForCheck(now: number) {
  return and(
    isNotNull(cryptoOrders.addressIndex),
    isNull(cryptoOrders.paidAt),
    or(
      and(
        inArray(cryptoOrders.status, OPEN_STATES),
        or(isNull(cryptoOrders.checkedAt), lte(cryptoOrders.checkedAt, now - CHECK_INTERVAL_MS)),
      ),
      and(
        inArray(cryptoOrders.status, CLOSED_UNPAID_STATES),
        gt(cryptoOrders.expiresAt, now - LATE_WATCH_MS),
        or(isNull(cryptoOrders.checkedAt), lte(cryptoOrders.checkedAt, now - LATE_CHECK_INTERVAL_MS)),
      ),
    ),
  );
}

/**
 * Cron: puts every order due for a check on the queue, CHECKS_PER_MESSAGE to a message, spread
 * a few seconds apart so neither one invocation's subrequests nor the explorer's rate limit are
 * exceeded; and queues again the settlement of paid orders still waiting for it.
 */
export async function queueChainChecks(
  deps: { db: Db; queue: JobQueue<"chain-check" | "crypto-order"> },
  now = Date.now(),
): Promise<number> {
  const { db, queue } = deps;
  const due = await db
    .select({ orderNumber: cryptoOrders.orderNumber })
    .from(cryptoOrders)
    .where(dueForCheck(now))
    .orderBy(asc(cryptoOrders.checkedAt))
    .limit(4000);
  const groups = groupsOf(
    due.map((o) => o.orderNumber),
    CHECKS_PER_MESSAGE,
  );
  // sendBatch takes at most 100 messages.
  for (const [batchIndex, batch] of groupsOf(groups, 100).entries()) {
    await queue.sendBatch(
      batch.map((orderNumbers, i) => ({
        body: { kind: "chain-check" as const, orderNumbers },
        delaySeconds: Math.min((batchIndex * 100 + i) * 2, 600),
      })),
    );
  }
  const unsettled = await db
    .select({ orderNumber: cryptoOrders.orderNumber })
    .from(cryptoOrders)
    .where(
      and(
        isNotNull(cryptoOrders.paidAt),
        inArray(cryptoOrders.status, SETTLEABLE),
        lt(cryptoOrders.paidAt, now - UNSETTLED_AFTER_MS),
        // One the queue is already retrying (or gave up on, for the admin to retry) is not sent again.
        sql`not exists (select 1 from ${failedJobs} where ${failedJobs.id} = 'crypto:' || ${cryptoOrders.orderNumber})`,
      ),
    )
    .limit(100);
  for (const { orderNumber } of unsettled) await queue.send({ kind: "crypto-order", orderNumber, code: null });
  return due.length;
}
