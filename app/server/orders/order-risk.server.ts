// A paid card order's risk (decision 093), judged once when it is first paid: a blocked buyer
// (e-mail, domain, the browser's address or the order's country) or a disposable-mail domain. A
// blocked buyer's order is always held for review instead of keyed; other risky orders only while
// staff hold those (off by default). Staff release a held order (its keys go out) or refund it in
// Shopify. A key used from another country than the order's is a reason the order page adds later.
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { BLOCK_REASONS, type RiskReason } from "~/lib/fraud";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { blocksMatching } from "../blocks/blocks.server";
import { isDisposableDomain } from "../blocks/disposable-domains.server";
import { fraudSettingsOf } from "../blocks/fraud-settings.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { shopifyOrders } from "../platform/db/schema.server";
import type { Order } from "./incoming-order.server";

const REASON_OF_BLOCK = { email: "blocked-email", domain: "blocked-domain", ip: "blocked-ip", country: "blocked-country" } as const;

/** What is risky about a paid order, now. */
export async function riskReasonsOf(
  db: Db,
  order: Pick<Order, "email" | "browserIp" | "country">,
  now = Date.now(),
): Promise<RiskReason[]> {
  const matches = await blocksMatching(db, { email: order.email, ip: order.browserIp, country: order.country }, now);
  const reasons = new Set<RiskReason>();
  for (const match of matches) if (match.kind in REASON_OF_BLOCK) reasons.add(REASON_OF_BLOCK[match.kind as keyof typeof REASON_OF_BLOCK]);
  const domain = order.email.split("@")[1];
  if (domain && isDisposableDomain(domain)) reasons.add("disposable-email");
  return [...reasons];
}

/**
 * Whether a paid order waits for staff instead of being keyed. Judged once, when first paid (its
 * reasons kept on the order); held until staff release it. A released order is never held again.
 */
export async function heldForReview(db: Db, order: Order, now = Date.now()): Promise<{ held: boolean; reasons: RiskReason[] }> {
  const row = await db
    .select({ riskReasons: shopifyOrders.riskReasons, heldAt: shopifyOrders.heldAt, releasedAt: shopifyOrders.releasedAt })
    .from(shopifyOrders)
    .where(eq(shopifyOrders.id, order.id))
    .get();
  const kept = row?.riskReasons ? (JSON.parse(row.riskReasons) as RiskReason[]) : null;
  if (!row || row.releasedAt !== null) return { held: false, reasons: kept ?? [] };
  if (row.heldAt !== null || kept !== null) return { held: row.heldAt !== null, reasons: kept ?? [] };
  const reasons = await riskReasonsOf(db, order, now);
  const hold =
    reasons.some((reason) => BLOCK_REASONS.includes(reason)) || (reasons.length > 0 && (await fraudSettingsOf(db)).holdRiskyOrders);
  const [judged] = await db
    .update(shopifyOrders)
    .set({ riskReasons: JSON.stringify(reasons), heldAt: hold ? now : null })
    .where(and(eq(shopifyOrders.id, order.id), isNull(shopifyOrders.riskReasons), isNull(shopifyOrders.releasedAt)))
    .returning({ heldAt: shopifyOrders.heldAt });
  if (judged?.heldAt) await audit(db, null, "order.held", `shopify:${order.id}`, { reasons: reasons.join(", ") });
  return { held: judged ? judged.heldAt !== null : hold, reasons };
}

/**
 * Staff: releases a held order, claiming it first (one conditional update): only the one who wins
 * it audits, and the caller hands out its keys. A conflict when it is not held (any more).
 */
export async function releaseHeldOrder(
  db: Db,
  actor: { viewer: Viewer; ip: string | null },
  orderId: string,
  now = Date.now(),
): Promise<Result> {
  const [released] = await db
    .update(shopifyOrders)
    .set({ releasedAt: now })
    .where(
      and(
        eq(shopifyOrders.id, orderId),
        isNotNull(shopifyOrders.heldAt),
        isNull(shopifyOrders.releasedAt),
        isNull(shopifyOrders.cancelledAt),
      ),
    )
    .returning({ id: shopifyOrders.id });
  if (!released) return fail("conflict", "This order is not held for review");
  await audit(db, actor.viewer.id, "order.release", `shopify:${orderId}`, {}, actor.ip);
  return ok();
}
