// Shopify calls a product's only variant "Default Title"; the shop sells it as Lifetime, and no buyer
// or admin ever reads the other name: not in the stock picker, the crypto dialog, the key e-mail or
// the keys export.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, productCodes } from "~/server/platform/db/schema.server";
import { call, createAccount, db, deliver, paidOrderPayload, signIn, unique } from "./helpers";

const LIFETIME_NUMBER = 4710000000003;
const LIFETIME = `gid://shopify/ProductVariant/${LIFETIME_NUMBER}`;

describe("the lifetime variant's name", () => {
  it("reads 'Lifetime' in the stock picker, the crypto dialog, the key e-mail and the keys export", async () => {
    const admin = await createAccount({ admin: true });
    const adminCookie = await signIn(admin, unique("ip"));

    const page = await (await call("/dashboard/manage-codes", { cookie: adminCookie })).text();
    expect(page).toContain("Vertex Rust - Lifetime");
    expect(page).not.toContain("Default Title");

    const code = unique("LIFE-").toUpperCase();
    const stocked = await call("/dashboard/manage-codes/stock", { form: { intent: "add", variantId: LIFETIME, codes: code }, cookie: adminCookie });
    expect(stocked.status).toBe(200);
    expect(await stocked.text()).toContain("new codes for Vertex Rust - Lifetime");

    const buyer = await createAccount();
    const dialog = await call("/api/crypto-orders", { form: { variantId: LIFETIME, coin: "BTC" }, cookie: await signIn(buyer, unique("ip")) });
    expect(((await dialog.json()) as { order: { variantTitle: string } }).order.variantTitle).toBe("Lifetime");

    // Shopify's order names the variant "Default Title" (or nothing at all); the e-mail does not.
    const order = paidOrderPayload({ variant: LIFETIME_NUMBER, variantTitle: "Default Title", price: "249.99" });
    await deliver("orders/paid", order);
    const sold = await db.select({ code: productCodes.code, title: productCodes.variantTitle }).from(productCodes).where(eq(productCodes.orderId, String(order.id))).get();
    expect(sold?.title).toBe("Vertex Rust - Lifetime");
    const mail = await db.select().from(mailOutbox).where(eq(mailOutbox.dedupeKey, `order-keys:${order.id}`)).get();
    expect(mail?.textBody).toContain(`Vertex Rust - Lifetime: ${sold?.code}`);
    expect(mail?.textBody).not.toContain("Default Title");

    const csv = await (await call(`/dashboard/orders/keys.csv?variant=${encodeURIComponent(LIFETIME)}`, { cookie: adminCookie })).text();
    expect(csv).toContain(`Vertex Rust - Lifetime,${code}`);
    expect(csv).not.toContain("Default Title");
  });
});
