// Carrying out a renewal that was paid (decision 090), whoever took the money: the rule is asked
// again at payment (the licence may have changed since it was named), then the licences domain's
// statements extend the licence, once per payment. The owner hears "extended until …".
import { and, eq, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { BRAND } from "~/lib/brand";
import { formatDate } from "~/lib/format";
import { maskKey } from "~/lib/licences";
import { type LicencePlan, PLAN_NAME } from "~/lib/plans";
import { fail, ok, type Result } from "~/lib/result";
import { entitlementsOfPlan } from "../catalogue/entitlements.server";
import { type Extension, extensionStatements, renewalByClaim, renewalById, type RenewalRow } from "../licences/licence-renewals.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { auditLog } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { licenceById, renewalKindOf } from "./renewal-terms.server";

/**
 * A payment that names a licence: who paid (only the licence's owner renews it) and for which plan
 * of which product; the rest is what the record keeps (how it was paid, its order, its price).
 */
export type RenewalPayment = Omit<Extension, "kind" | "toPlan" | "entitlements" | "variantTitle"> & {
  payer: string;
  paid: { product: string; plan: LicencePlan; variantTitle: string };
};

/** The money side of a renewal paid in the same batch: its statements (after the record), and whether it was paid, in SQL. */
export type PaidInBatch = (ours: SQL) => { statements: readonly BatchItem<"sqlite">[]; paid: SQL };

/**
 * Extends the licence the payment names, once per claim: `fresh` when this call did it, false when
 * the same payment had done it before. Refused (with the reason for the order) when the licence
 * cannot take it, in which case the payer hands out a key instead. With `pay`, the money moves in
 * the same batch, and the licence only if it did.
 */
export async function applyRenewal(
  db: Db,
  payment: RenewalPayment,
  pay?: PaidInBatch,
): Promise<Result<{ row: RenewalRow; fresh: boolean }>> {
  const done = await renewalByClaim(db, payment.claimKey);
  if (done) return ok({ row: done, fresh: false });
  const licence = await licenceById(db, payment.licenceId);
  const kind = renewalKindOf(licence, payment.payer, payment.paid, payment.paidAt);
  if (!kind.ok) return kind;
  const { payer: _payer, paid, ...recorded } = payment;
  const extension = extensionStatements(db, {
    ...recorded,
    kind: kind.value,
    toPlan: paid.plan,
    entitlements: kind.value === "upgrade" ? entitlementsOfPlan(paid.plan) : undefined,
    variantTitle: paid.variantTitle,
  });
  if (pay) {
    const money = pay(extension.ours);
    await db.batch([extension.claim, ...money.statements, extension.undoUnless(money.paid), ...extension.follow]);
  } else {
    await db.batch([extension.claim, ...extension.follow]);
  }
  const row = await renewalById(db, extension.id);
  if (row) return ok({ row, fresh: true });
  // The same payment, applied at the same moment by another run: that run extended the licence.
  const other = await renewalByClaim(db, payment.claimKey);
  if (other) return ok({ row: other, fresh: false });
  return fail("conflict", pay ? "Not enough balance" : "The licence changed while it was being extended");
}

/**
 * Records on the order (its timeline) why its payment extended nothing: the payer then got a key
 * as any purchase does. Once per order and reason, however often the payment is applied again.
 */
export async function noteRenewalRefused(db: Db, orderKey: string, licenceId: number, reason: string): Promise<void> {
  const seen = await db
    .select({ detail: auditLog.detail })
    .from(auditLog)
    .where(and(eq(auditLog.subject, orderKey), eq(auditLog.action, "renewal.refused")));
  if (seen.some((row) => row.detail?.includes(JSON.stringify(reason)))) return;
  await audit(db, null, "renewal.refused", orderKey, { licence: licenceId, reason });
}

/** "Vertex Rust licence KEY…ABCD" as the e-mails name it. */
const licenceName = (licence: { product: string; key: string }) => `${licence.product} licence ${maskKey(licence.key)}`;

/**
 * The owner hears what the payment did: the licence extended until its new expiry, or moved to its
 * new plan. Once per renewal (its claim is the dedupe key).
 */
export async function mailRenewed(deps: MailingDeps, renewal: RenewalRow, orderKey?: string | null): Promise<void> {
  // Read again: a refund in the same order body may have taken it back already.
  const row = await renewalByClaim(deps.db, renewal.claimKey);
  const licence = row && row.refundedAt === null ? await licenceById(deps.db, row.licenceId) : undefined;
  if (!row || !licence) return;
  const until = row.expiresAt === null ? null : `${formatDate(row.expiresAt)} (UTC)`;
  const name = licenceName(licence);
  const subject =
    row.kind === "upgrade"
      ? `Your ${BRAND} licence is now ${PLAN_NAME[row.toPlan]}`
      : `Your ${BRAND} licence is extended until ${formatDate(row.expiresAt!)}`;
  const what =
    row.kind === "upgrade"
      ? `Your ${name} is now on the ${PLAN_NAME[row.toPlan]} plan${until ? `, until ${until}` : row.toPlan === "lifetime" ? ", for life" : " (its time starts at its first use)"}.`
      : `Your ${name} is extended until ${until}.`;
  const rest = "Same key, same PC: nothing to do. Your program picks the change up at its next check.";
  await sendMail(deps, {
    to: licence.ownerEmail,
    subject,
    text: `${what}\n\n${rest}`,
    html: `<p>${escapeHtml(what)}</p><p>${escapeHtml(rest)}</p>`,
    dedupeKey: `renewed:${row.claimKey}`,
    orderKey: orderKey ?? row.orderKey ?? undefined,
  });
}
