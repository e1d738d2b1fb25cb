// Shopify calls a product's only variant "Default Title"; the shop sells it as Lifetime, and no buyer
// or admin ever reads the other name: not in the stock picker, the crypto dialog, the key e-mail or
// the keys export.
import { env } from "cloudflare:workers";
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { seedDemoData } from "~/server/jobs/demo-seed.server";
import { mailOutbox, productCodes, userSubscriptions } from "~/server/platform/db/schema.server";
import { call, createAccount, db, deliver, paidOrderPayload, signIn, unique } from "../helpers";

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
    const stocked = await call("/dashboard/manage-codes/stock", {
      form: { intent: "add", variantId: LIFETIME, codes: code },
      cookie: adminCookie,
    });
    expect(stocked.status).toBe(200);
    expect(await stocked.text()).toContain("new codes for Vertex Rust - Lifetime");

    const buyer = await createAccount();
    const dialog = await call("/api/crypto-orders", {
      form: { variantId: LIFETIME, coin: "BTC" },
      cookie: await signIn(buyer, unique("ip")),
    });
    expect(((await dialog.json()) as { order: { variantTitle: string } }).order.variantTitle).toBe("Lifetime");

    // Shopify's order names the variant "Default Title" (or nothing at all); the e-mail does not.
    const order = paidOrderPayload({ variant: LIFETIME_NUMBER, variantTitle: "Default Title", price: "249.99" });
    await deliver("orders/paid", order);
    const sold = await db
      .select({ code: productCodes.code, title: productCodes.variantTitle })
      .from(productCodes)
      .where(eq(productCodes.orderId, String(order.id)))
      .get();
    expect(sold?.title).toBe("Vertex Rust - Lifetime");
    const mail = await db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.dedupeKey, `order-keys:${order.id}`))
      .get();
    expect(mail?.textBody).toContain(`Vertex Rust - Lifetime: ${sold?.code}`);
    expect(mail?.textBody).not.toContain("Default Title");

    const csv = await (await call(`/dashboard/orders/keys.csv?variant=${encodeURIComponent(LIFETIME)}`, { cookie: adminCookie })).text();
    expect(csv).toContain(`Vertex Rust - Lifetime,${code}`);
    expect(csv).not.toContain("Default Title");
  });

  it("reads 'Lifetime' on the demo seed's stock: the stock list, the sold list, the key e-mail, the sales page and the export", async () => {
    await seedDemoData(db, env.DOWNLOADS);
    const seeded = await db
      .select({ code: productCodes.code, title: productCodes.variantTitle })
      .from(productCodes)
      .where(and(eq(productCodes.variantId, LIFETIME), like(productCodes.code, "DEMO-%")));
    expect(seeded.length).toBeGreaterThan(0);
    expect(new Set(seeded.map((c) => c.title))).toEqual(new Set(["Vertex Rust - Lifetime"]));

    const adminCookie = await signIn(await createAccount({ admin: true }), unique("ip"));
    const order = paidOrderPayload({ variant: LIFETIME_NUMBER, variantTitle: "Default Title", price: "249.99" });
    await deliver("orders/paid", order);
    const sold = await db
      .select({ code: productCodes.code })
      .from(productCodes)
      .where(eq(productCodes.orderId, String(order.id)))
      .get();
    expect(seeded.map((c) => c.code)).toContain(sold?.code);
    const mail = await db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.dedupeKey, `order-keys:${order.id}`))
      .get();
    expect(mail?.textBody).toContain(`Vertex Rust - Lifetime: ${sold?.code}`);
    expect(`${mail?.textBody}${mail?.htmlBody}`).not.toContain("Default Title");

    for (const path of [
      "/dashboard/manage-codes",
      "/dashboard/sales",
      `/dashboard/orders/keys.csv?variant=${encodeURIComponent(LIFETIME)}`,
    ]) {
      const text = await (await call(path, { cookie: adminCookie })).text();
      expect(text, path).toContain("Vertex Rust - Lifetime");
      expect(text, path).not.toContain("Default Title");
    }
  });

  it("are corrected where an earlier version stored Shopify's name (codes, backorders, orders, subscriptions)", async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.endsWith("plan_names_at_the_door.sql"))!;
    const code = unique("OLD-").toUpperCase();
    const buyer = await createAccount();
    await db.insert(productCodes).values({ variantId: LIFETIME, variantTitle: "Vertex Rust - Default Title", code, createdAt: 0 });
    await db.insert(userSubscriptions).values({
      id: crypto.randomUUID(),
      userId: buyer.id,
      status: "active",
      productTitle: "Vertex Rust",
      variantTitle: "Default Title",
      priceCurrency: "USD",
      priceAmount: "249.99",
      purchaseDate: 0,
    });
    const waiting = await db
      .insert(mailOutbox)
      .values({
        toAddress: buyer.email,
        subject: "Your key",
        textBody: `Vertex Rust - Default Title: ${code}`,
        htmlBody: `<li>Vertex Rust - Default Title: <code>${code}</code></li>`,
        status: "pending",
        createdAt: 0,
        nextAttemptAt: 0,
      })
      .returning()
      .get();
    for (const query of migration.queries) await env.DB.prepare(query).run();
    expect((await db.select({ title: productCodes.variantTitle }).from(productCodes).where(eq(productCodes.code, code)).get())?.title).toBe(
      "Vertex Rust - Lifetime",
    );
    expect((await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, buyer.id)).get())?.variantTitle).toBe("Lifetime");
    const mail = await db.select().from(mailOutbox).where(eq(mailOutbox.id, waiting.id)).get();
    expect(mail?.textBody).toBe(`Vertex Rust - Lifetime: ${code}`);
    expect(mail?.htmlBody).toBe(`<li>Vertex Rust - Lifetime: <code>${code}</code></li>`);
  });
});
