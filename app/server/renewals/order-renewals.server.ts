// Card orders that name a licence (decision 090): the cart carried the licence's id as an attribute
// (RENEWAL_ATTRIBUTE) to Shopify's checkout (or the demo's, or a draft order's invoice), and the paid
// order's webhook repeats it. Each unit of a line for that licence's product extends it (a renewal
// of its plan, an upgrade to a longer one) instead of taking a key from stock; a unit it cannot
// extend gets a key as any purchase does, and the reason is recorded on the order. Refunds and
// cancellations take back what the order's renewals added.
import { or, type SQL } from "drizzle-orm";
import { maskKey } from "~/lib/licences";
import { orderKey } from "~/lib/orders";
import { planOf } from "~/lib/plans";
import { fail, type Result } from "~/lib/result";
import { BRAND } from "~/lib/brand";
import { formatDate } from "~/lib/format";
import { type RenewalRow, renewalsOfLine, renewalsOfOrder, takeBackStatements, takenBack } from "../licences/licence-renewals.server";
import type { Db } from "../platform/db/client.server";
import type { OrderLine } from "../platform/db/stored-orders.server";
import { escapeHtml } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { applyRenewal, noteRenewalRefused } from "./apply-renewal.server";
import { licenceById } from "./renewal-terms.server";

/** What a paid card order tells a renewal: who paid, in what currency, and the licence the cart named. */
export interface RenewingOrder {
  id: string;
  email: string;
  currency: string;
  renewsLicence: number | null;
}

/** What one unit of a line cost, after the line's discount (an upgrade's credit, an affiliate's code). */
export function unitCents(line: Pick<OrderLine, "price" | "quantity" | "discount">): number {
  const discount = Math.round(Number(line.discount ?? 0) * 100);
  return Math.max(0, Math.round(Number(line.price) * 100) - Math.round(discount / Math.max(1, line.quantity)));
}

/**
 * Extends the named licence for one unit of `line`, once whoever runs it again. A line of another
 * product, or a licence that cannot take it, is refused with the reason noted on the order: the
 * caller then hands the unit a key from stock.
 */
export async function renewOrderUnit(
  db: Db,
  order: RenewingOrder,
  line: OrderLine,
  unitIndex: number,
  now: number,
): Promise<Result<{ row: RenewalRow; fresh: boolean }>> {
  if (order.renewsLicence === null) return fail("invalid", "The order names no licence");
  const renewed = await applyRenewal(db, {
    claimKey: `shopify:${order.id}:${line.id}:${unitIndex}`,
    licenceId: order.renewsLicence,
    payer: order.email,
    paid: { product: line.title, plan: planOf(line.variantTitle), variantTitle: line.variantTitle },
    method: "card",
    orderKey: orderKey("shopify", order.id),
    orderLineId: line.id,
    unitIndex,
    priceCents: unitCents(line),
    currency: order.currency,
    paidAt: now,
  });
  if (!renewed.ok) await noteRenewalRefused(db, orderKey("shopify", order.id), order.renewsLicence, renewed.problem.message);
  return renewed;
}

/**
 * A refund's statements for the renewals its lines paid for (`quantity` units of each, newest
 * first), while `claimed` holds: what they added is taken back. `claim` names the run; the
 * renewals it took back are read with `renewalsTakenBack` after the batch.
 */
export function takeBackRefunded(
  db: Db,
  orderId: string,
  lines: { lineId: string; quantity: number }[],
  claim: string,
  now: number,
  claimed: SQL,
) {
  if (lines.length === 0) return [];
  const key = orderKey("shopify", orderId);
  return takeBackStatements(db, or(...lines.map(({ lineId, quantity }) => renewalsOfLine(key, lineId, quantity)))!, claim, now, claimed);
}

/** A cancellation's statements: every renewal the order paid for is taken back. */
export const takeBackCancelled = (db: Db, orderId: string, claim: string, now: number) =>
  takeBackStatements(db, renewalsOfOrder(orderKey("shopify", orderId)), claim, now);

/** The renewals a refund or cancellation run took back. */
export const renewalsTakenBack = (db: Db, claim: string) => takenBack(db, claim);

/**
 * The owner hears that a refund took the renewal's time back, and until when the licence runs now
 * (once per renewal).
 */
export async function mailTakenBack(deps: MailingDeps, rows: RenewalRow[], now = Date.now()): Promise<void> {
  for (const row of rows) {
    const licence = await licenceById(deps.db, row.licenceId);
    if (!licence) continue;
    const ends =
      licence.expiresAt === null
        ? "It has no expiry."
        : licence.expiresAt <= now
          ? "It has ended."
          : `It now runs until ${formatDate(licence.expiresAt)} (UTC).`;
    const what = `The ${row.kind === "upgrade" ? "upgrade" : "renewal"} of your ${licence.product} licence ${maskKey(licence.key)} was refunded, so the time it added was taken back. ${ends}`;
    await sendMail(deps, {
      to: licence.ownerEmail,
      subject: `Your ${BRAND} licence's ${row.kind === "upgrade" ? "upgrade" : "renewal"} was refunded`,
      text: what,
      html: `<p>${escapeHtml(what)}</p>`,
      dedupeKey: `renewal-refunded:${row.claimKey}`,
      orderKey: row.orderKey ?? undefined,
    });
  }
}
