// A dispute's evidence (decision 092): what the shop's own records say about the disputed order,
// for staff to answer Shopify's dispute form: the order and its key e-mail, and each key's licence
// activity (its first activation, the PC it is bound to, its checks, PC resets, and the places and
// countries its key watch heard it checked from). Read only; the export is the same as plain text.
import { and, count, desc, eq, inArray } from "drizzle-orm";
import { formatDateTime } from "~/lib/format";
import { maskKey } from "~/lib/licences";
import { orderLicences } from "../licences/licence-records.server";
import { type KeyWatchNamespace, sightingsOf } from "../licences/sharing.server";
import type { Db } from "../platform/db/client.server";
import { disputes, licenceResets, mailOutbox, shopifyOrders } from "../platform/db/schema.server";

/** A hardware id as evidence shows it: enough to tell PCs apart, not the whole id. */
const shortHwid = (hwid: string | null) => (hwid === null ? null : hwid.length <= 12 ? hwid : `${hwid.slice(0, 6)}…${hwid.slice(-4)}`);

export async function disputeEvidence(db: Db, watch: KeyWatchNamespace | undefined, disputeId: string) {
  const dispute = await db.select().from(disputes).where(eq(disputes.id, disputeId)).get();
  if (!dispute) return null;
  const [order, keys, mails] = await Promise.all([
    db.select().from(shopifyOrders).where(eq(shopifyOrders.id, dispute.orderId)).get(),
    orderLicences(db, dispute.orderId),
    db
      .select({ subject: mailOutbox.subject, to: mailOutbox.toAddress, status: mailOutbox.status, sentAt: mailOutbox.sentAt })
      .from(mailOutbox)
      .where(eq(mailOutbox.orderKey, `shopify:${dispute.orderId}`))
      .orderBy(desc(mailOutbox.createdAt))
      .limit(20),
  ]);
  const resets = keys.length
    ? await db
        .select({ licenceId: licenceResets.licenceId, n: count() })
        .from(licenceResets)
        .where(
          and(
            inArray(
              licenceResets.licenceId,
              keys.map((k) => k.id),
            ),
          ),
        )
        .groupBy(licenceResets.licenceId)
    : [];
  const activity = await Promise.all(
    keys.map(async (licence) => {
      const seen = await sightingsOf(watch, licence.id).catch(() => []);
      return {
        key: maskKey(licence.key),
        product: licence.product,
        plan: licence.plan,
        activatedAt: licence.activatedAt,
        pc: shortHwid(licence.hwid),
        device: licence.lastCheckDevice,
        lastCheckAt: licence.lastCheckAt,
        lastCheckPlace: licence.lastCheckPlace,
        resets: resets.find((r) => r.licenceId === licence.id)?.n ?? 0,
        countries: [...new Set(seen.flatMap((s) => (s.country ? [s.country] : [])))],
        addresses: seen.length,
        firstSeen: seen.length ? Math.min(...seen.map((s) => s.firstSeen)) : null,
        lastSeen: seen.length ? Math.max(...seen.map((s) => s.lastSeen)) : null,
      };
    }),
  );
  return {
    dispute,
    order: order
      ? {
          name: order.name ?? `#${order.id}`,
          email: order.email,
          paidAt: order.paidAt,
          total: order.totalPrice,
          currency: order.currency,
          country: order.country,
        }
      : null,
    mails: mails.filter((m) => m.status === "sent"),
    activity,
  };
}

export type DisputeEvidence = NonNullable<Awaited<ReturnType<typeof disputeEvidence>>>;

const when = (ms: number | null) => (ms === null ? "never" : `${formatDateTime(ms)} UTC`);

/** The evidence as a plain-text file, to paste or attach in Shopify's dispute form. */
export function evidenceText({ dispute, order, mails, activity }: DisputeEvidence, shop: string): string {
  const lines = [
    `${shop}: evidence for payment dispute ${dispute.id}`,
    `Dispute: ${dispute.type}, reason ${dispute.reason ?? "not given"}, status ${dispute.status}, amount ${dispute.amount ?? "?"} ${dispute.currency ?? ""}`.trim(),
    `Evidence due by: ${when(dispute.evidenceDueBy)}`,
    "",
    "ORDER",
    order
      ? `Order ${order.name}, paid ${when(order.paidAt)}, ${order.total ?? "?"} ${order.currency}, by ${order.email}${order.country ? ` (billing country ${order.country})` : ""}`
      : `Order ${dispute.orderId} (not recorded by the shop)`,
    "",
    "DELIVERY (digital goods: licence keys sent by e-mail)",
    ...(mails.length ? mails.map((m) => `- ${when(m.sentAt)}: "${m.subject}" sent to ${m.to}`) : ["- No e-mail recorded as sent"]),
    "",
    "USE OF THE KEYS (the licence service's records)",
    ...(activity.length
      ? activity.flatMap((a) => [
          `- Key ${a.key} (${a.product}, ${a.plan})`,
          `  First activated: ${when(a.activatedAt)}`,
          `  Bound to PC: ${a.pc ?? "none"}${a.device ? ` ("${a.device}")` : ""}; PC resets: ${a.resets}`,
          `  Last check: ${when(a.lastCheckAt)}${a.lastCheckPlace ? ` from ${a.lastCheckPlace}` : ""}`,
          `  Checked from ${a.addresses} address(es)${a.countries.length ? ` in ${a.countries.join(", ")}` : ""}${a.firstSeen ? `, between ${when(a.firstSeen)} and ${when(a.lastSeen)}` : ""}`,
        ])
      : ["- No key was handed out for this order"]),
    "",
  ];
  return lines.join("\n");
}
