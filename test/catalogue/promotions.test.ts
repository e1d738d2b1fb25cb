// The product page's social proof through the Worker: "bought N times in the last 24 hours" is the
// real count of paid orders and shows only from the threshold staff set; the sale box exists only
// while staff's sale runs, counts to its real end, and no cached copy outlives it.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, shopifyOrders } from "~/server/platform/db/schema.server";
import { call, createAccount, cryptoOrder, db, deliver, nextId, paidOrderPayload, signIn, unique } from "../helpers";

const PRODUCT = {
  id: "gid://shopify/Product/8800000000002",
  handle: "vertex-hwid-spoofer",
  variant: 4710000000004,
  otherVariant: 4710000000005,
};
const PAGE = `/product/${PRODUCT.handle}`;
const admin = async () => signIn(await createAccount({ admin: true }), unique("ip"));
const promote = (cookie: string, form: Record<string, string>) => call("/dashboard/promotions", { form, cookie });
const purchasers = (html: string) => /data-testid="recent-purchasers" data-count="(\d+)"/.exec(html)?.[1];
/** A time as the form's UTC datetime-local field sends it. */
const utcField = (ms: number) => new Date(ms).toISOString().slice(0, 16);

describe("recent purchasers", () => {
  it("count the paid orders of the last 24 hours, shown only from staff's threshold, and never a made-up number", async () => {
    const cookie = await admin();
    expect(purchasers(await (await call(PAGE)).text())).toBeUndefined();
    const orders = [];
    for (let i = 0; i < 4; i++) {
      const order = paidOrderPayload({ variant: PRODUCT.variant, variantTitle: "30 Days", title: "Vertex HWID Spoofer", price: "39.99" });
      await deliver("orders/paid", order);
      orders.push(order);
    }
    // Four paid orders, under the default threshold of five: the page says nothing.
    const below = await (await call(PAGE)).text();
    expect(purchasers(below)).toBeUndefined();
    expect(below).not.toContain("in the last 24 hours");

    expect(
      (await promote(await signIn(await createAccount({ role: "support" }), unique("ip")), { intent: "threshold", threshold: "4" })).status,
    ).toBe(403);
    const zero = await promote(cookie, { intent: "threshold", threshold: "0" });
    expect(zero.status).toBe(400);
    expect(await zero.text()).toContain("Use a whole number from 1");
    expect((await promote(cookie, { intent: "threshold", threshold: "4" })).status).toBe(200);
    expect(await db.select().from(auditLog).where(eq(auditLog.action, "storefront.recent-purchasers")).all()).not.toHaveLength(0);
    // The save dropped the cached page: it says four at once.
    expect(purchasers(await (await call(PAGE)).text())).toBe("4");

    // An order paid more than a day ago no longer counts, so the page falls below the threshold.
    await db
      .update(shopifyOrders)
      .set({ paidAt: Date.now() - 25 * 60 * 60_000 })
      .where(eq(shopifyOrders.id, String(orders[0]!.id)));
    await promote(cookie, { intent: "threshold", threshold: "3" });
    expect(purchasers(await (await call(PAGE)).text())).toBe("3");

    // A refunded card order leaves the count; crypto orders of the product paid within the day join
    // it, but not a cancelled one, one paid two days ago, a wallet top-up, or another product's.
    await db
      .update(shopifyOrders)
      .set({ refundedAt: Date.now() })
      .where(eq(shopifyOrders.id, String(orders[1]!.id)));
    const paidAt = Date.now() - 60_000;
    await cryptoOrder({ status: "complete", paidAt });
    await cryptoOrder({ status: "complete", paidAt });
    await cryptoOrder({ status: "cancelled", paidAt });
    await cryptoOrder({ status: "complete", paidAt: Date.now() - 2 * 24 * 60 * 60_000 });
    await cryptoOrder({ status: "complete", paidAt, purpose: "top-up" });
    await cryptoOrder({ status: "complete", paidAt, variantId: "gid://shopify/ProductVariant/4710000000001" });
    await promote(cookie, { intent: "threshold", threshold: "2" });
    expect(purchasers(await (await call(PAGE)).text())).toBe("4");
  });

  it("count an order once however many of the product's lines it holds, from when it is paid, and not once a later body drops them", async () => {
    const cookie = await admin();
    // Each read saves the threshold first, which drops the cached page.
    const count = async () => {
      await promote(cookie, { intent: "threshold", threshold: "1" });
      return Number(purchasers(await (await call(PAGE)).text()) ?? 0);
    };
    const before = await count();
    const order = paidOrderPayload({ variant: PRODUCT.variant, variantTitle: "30 Days", title: "Vertex HWID Spoofer", price: "39.99" });
    const [line] = order.line_items;
    const otherProduct = { ...line!, id: nextId(), variant_id: 4710000000001, title: "Vertex Rust" };
    // Two lines of one variant, one of the product's other variant, and another product's.
    const lines = [line!, { ...line!, id: nextId() }, { ...line!, id: nextId(), variant_id: PRODUCT.otherVariant }, otherProduct];
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    await deliver("orders/create", { ...order, financial_status: "pending", updated_at: at(0), line_items: lines });
    expect(await count()).toBe(before);
    await deliver("orders/paid", { ...order, updated_at: at(30_000), line_items: lines });
    expect(await count()).toBe(before + 1);

    // Edited in Shopify: only the other product's line is left, so this product was not bought.
    await deliver("orders/updated", { ...order, updated_at: at(60_000), line_items: [otherProduct] });
    expect(await count()).toBe(before);
  });
});

describe("the sale box", () => {
  it("appears only while staff's sale runs, counting to its real end, and goes when it ends", async () => {
    const cookie = await admin();
    const none = await (await call(PAGE)).text();
    expect(none).not.toContain('data-testid="sale-box"');
    expect(none).not.toContain("20% OFF");

    const past = await promote(cookie, {
      intent: "sale",
      product: PRODUCT.handle,
      label: "Launch week",
      endsAt: utcField(Date.now() - 60_000),
    });
    expect(past.status).toBe(400);
    expect(await past.text()).toContain("The sale must end in the future");
    expect((await promote(cookie, { intent: "sale", product: PRODUCT.handle, label: "Launch week", endsAt: "next tuesday" })).status).toBe(
      400,
    );
    expect(
      (
        await promote(cookie, {
          intent: "sale",
          product: "no-such-product",
          label: "Launch week",
          endsAt: utcField(Date.now() + 86_400_000),
        })
      ).status,
    ).toBe(404);

    const endsAt = utcField(Date.now() + 2 * 86_400_000);
    expect((await promote(cookie, { intent: "sale", product: PRODUCT.handle, label: "Launch week", endsAt })).status).toBe(200);
    const running = await (await call(PAGE)).text();
    expect(running).toContain('data-testid="sale-box"');
    expect(running).toContain("Launch week");
    expect(running).toContain(`dateTime="${endsAt}:00.000Z"`);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(eq(auditLog.subject, `product:${PRODUCT.id}`))
        .all(),
    ).toMatchObject([{ action: "storefront.sale" }]);

    // Ending in four minutes: no copy of the page, fresh or stale, is kept past the end.
    const soon = Date.now() + 4 * 60_000 + 30_000;
    expect((await promote(cookie, { intent: "sale", product: PRODUCT.handle, label: "Last minutes", endsAt: utcField(soon) })).status).toBe(
      200,
    );
    const closing = await call(PAGE);
    const cacheControl = closing.headers.get("Cache-Control") ?? "";
    const maxAge = Number(/max-age=(\d+)/.exec(cacheControl)?.[1]);
    const stale = Number(/stale-while-revalidate=(\d+)/.exec(cacheControl)?.[1] ?? 0);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge + stale).toBeLessThanOrEqual(5 * 60);

    expect((await promote(cookie, { intent: "end-sale", product: PRODUCT.handle })).status).toBe(200);
    expect(await (await call(PAGE)).text()).not.toContain('data-testid="sale-box"');
    expect((await promote(cookie, { intent: "end-sale", product: PRODUCT.handle })).status).toBe(404);
  });
});
