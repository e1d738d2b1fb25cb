// Low-stock alerts: who may set a threshold, what a threshold may be, and the alert itself — one
// e-mail per admin when real sales bring stock down to the threshold, re-armed by restocking, and
// the warning on the dashboard and Manage Codes.
import { and, eq, like } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, mailOutbox, productCodes, stockAlerts } from "~/server/platform/db/schema.server";
import { call, createAccount, db, deliver, nextId, paidOrderPayload, signIn, type TestAccount, unique } from "../helpers";

const STOCK = "/dashboard/manage-codes/stock";
// The HWID Spoofer's only variant ("Default Title" at Shopify, sold as Lifetime); no other test file sells it.
const VARIANT_NUMBER = 4710000000005;
const VARIANT = `gid://shopify/ProductVariant/${VARIANT_NUMBER}`;
const TITLE = "Vertex HWID Spoofer - Lifetime";

const text = (html: string) => html.replaceAll("<!-- -->", "");

let admin: TestAccount;
let adminCookie: string;
beforeAll(async () => {
  admin = await createAccount({ admin: true });
  adminCookie = await signIn(admin, unique("ip"));
});

/** One paid Shopify order for `quantity` units of the variant, through the signed webhook and the queue. */
async function sell(quantity = 1) {
  await deliver(
    "orders/paid",
    paidOrderPayload(
      { variant: VARIANT_NUMBER, variantTitle: "Default Title", title: "Vertex HWID Spoofer", quantity, price: "19.99" },
      { namePrefix: "#S" },
    ),
  );
}

const alertsTo = (to: string) =>
  db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.toAddress, to), like(mailOutbox.subject, `Low stock: ${TITLE}%`)));

const available = async () =>
  (
    await db
      .select({ id: productCodes.id })
      .from(productCodes)
      .where(and(eq(productCodes.variantId, VARIANT), eq(productCodes.isUsed, false)))
  ).length;

const restock = async (n: number) => {
  const codes = Array.from({ length: n }, () => unique("LOW-").toUpperCase()).join("\n");
  const response = await call(STOCK, { form: { intent: "add", variantId: VARIANT, codes }, cookie: adminCookie });
  expect(response.status).toBe(200);
};

describe("who may set a threshold", () => {
  it("refuses members and support with 403 and stores nothing", async () => {
    const member = await signIn(await createAccount(), unique("ip"));
    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    for (const cookie of [member, support]) {
      for (const form of [
        { intent: "threshold", variantId: VARIANT, threshold: "7" } as Record<string, string>,
        { intent: "clear-threshold", variantId: VARIANT },
      ]) {
        expect((await call(STOCK, { form, cookie })).status).toBe(403);
        expect((await call(`${STOCK}.data`, { form, cookie })).status).toBe(403);
      }
      expect((await call("/dashboard/manage-codes", { cookie })).status).toBe(403);
    }
    expect(await db.select().from(stockAlerts).where(eq(stockAlerts.variantId, VARIANT)).get()).toBeUndefined();
  });
});

describe("threshold input", () => {
  it("answers 400 with the field's message for anything but a whole number from 0 to 100,000", async () => {
    for (const threshold of ["", "abc", "-1", "1.5", "1e3", "100001", "99999999"]) {
      const response = await call(STOCK, { form: { intent: "threshold", variantId: VARIANT, threshold }, cookie: adminCookie });
      expect([threshold, response.status]).toEqual([threshold, 400]);
      const body = await response.text();
      expect(body).toContain("Enter a whole number from 0 to 100,000");
      expect(body).toContain('"threshold"');
    }
    expect(await db.select().from(stockAlerts).where(eq(stockAlerts.variantId, VARIANT)).get()).toBeUndefined();
  });

  it("refuses a variant that is not in the catalogue", async () => {
    const forged = `gid://shopify/ProductVariant/${nextId()}`;
    const response = await call(STOCK, { form: { intent: "threshold", variantId: forged, threshold: "3" }, cookie: adminCookie });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("That variant is not in the catalogue");
    expect(await db.select().from(stockAlerts).where(eq(stockAlerts.variantId, forged)).get()).toBeUndefined();
  });

  it("sets, changes and clears a threshold, each audited", async () => {
    const variant = "gid://shopify/ProductVariant/4710000000003";
    expect((await call(STOCK, { form: { intent: "threshold", variantId: variant, threshold: "0" }, cookie: adminCookie })).status).toBe(
      200,
    );
    expect((await db.select().from(stockAlerts).where(eq(stockAlerts.variantId, variant)).get())?.threshold).toBe(0);
    expect(
      (await call(STOCK, { form: { intent: "threshold", variantId: variant, threshold: " 100000 " }, cookie: adminCookie })).status,
    ).toBe(200);
    expect((await db.select().from(stockAlerts).where(eq(stockAlerts.variantId, variant)).get())?.threshold).toBe(100000);
    expect((await call(STOCK, { form: { intent: "clear-threshold", variantId: variant }, cookie: adminCookie })).status).toBe(200);
    expect(await db.select().from(stockAlerts).where(eq(stockAlerts.variantId, variant)).get()).toBeUndefined();
    const entries = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, admin.id), eq(auditLog.subject, variant)));
    expect(entries.map((e) => e.action).sort()).toEqual(["stock.threshold", "stock.threshold", "stock.threshold-clear"]);
  });
});

describe("the low-stock alert", () => {
  it("mails every admin once when sales bring stock down to the threshold, again only after a restock above it", async () => {
    const second = await createAccount({ admin: true });
    // Start from an empty shelf for this variant, then stock five and alert at two.
    await db.delete(productCodes).where(and(eq(productCodes.variantId, VARIANT), eq(productCodes.isUsed, false)));
    await restock(5);
    const set = await call(STOCK, { form: { intent: "threshold", variantId: VARIANT, threshold: "2" }, cookie: adminCookie });
    expect(set.status).toBe(200);
    expect(await alertsTo(admin.email)).toHaveLength(0);

    await sell(); // 4 left
    await sell(2); // 2 left: at the threshold
    expect(await available()).toBe(2);
    const first = await alertsTo(admin.email);
    expect(first).toHaveLength(1);
    expect(first[0]!.subject).toBe(`Low stock: ${TITLE} has 2 codes left`);
    expect(await alertsTo(second.email)).toHaveLength(1);

    await sell(); // 1 left: still the same shortage
    await sell(); // 0 left
    await sell(); // backordered
    expect(await available()).toBe(0);
    expect(await alertsTo(admin.email)).toHaveLength(1);

    // The dashboard and Manage Codes warn an admin (with the waiting unit); a member sees nothing.
    const dashboard = text(await (await call("/dashboard", { cookie: adminCookie })).text());
    expect(dashboard).toContain("Low stock");
    expect(dashboard).toMatch(new RegExp(`${TITLE}</span>: 0 codes available \\(alert at 2\\)`));
    expect(dashboard).toContain("1 order unit waiting");
    const codesPage = text(await (await call("/dashboard/manage-codes", { cookie: adminCookie })).text());
    expect(codesPage).toContain("Low stock");
    expect(codesPage).toContain(`${TITLE}</span>: 0 codes available (alert at 2)`);
    const member = text(await (await call("/dashboard", { cookie: await signIn(await createAccount(), unique("ip")) })).text());
    expect(member).not.toContain("Low stock");

    // Restocking six: one fills the waiting unit, five stay: above the threshold, so it re-arms.
    await restock(6);
    expect(await available()).toBe(5);
    expect((await db.select().from(stockAlerts).where(eq(stockAlerts.variantId, VARIANT)).get())?.alertedAt).toBeNull();
    expect(await alertsTo(admin.email)).toHaveLength(1);
    const calm = text(await (await call("/dashboard", { cookie: adminCookie })).text());
    expect(calm).not.toContain(`${TITLE}</span>:`);

    // The next shortage mails again; two orders at once across the threshold mail once.
    await sell(2); // 3 left
    await Promise.all([sell(), sell()]); // 1 left
    expect(await available()).toBe(1);
    const alerts = await alertsTo(admin.email);
    expect(alerts).toHaveLength(2);
    expect(new Set(alerts.map((m) => m.dedupeKey)).size).toBe(2);
    expect(await alertsTo(second.email)).toHaveLength(2);
  });
  it("mails when an admin deletes codes down to the threshold, and not for a code that is not in stock", async () => {
    await db.delete(productCodes).where(and(eq(productCodes.variantId, VARIANT), eq(productCodes.isUsed, false)));
    await restock(4);
    expect((await call(STOCK, { form: { intent: "threshold", variantId: VARIANT, threshold: "2" }, cookie: adminCookie })).status).toBe(
      200,
    );
    const before = (await alertsTo(admin.email)).length;
    const inStock = await db
      .select({ id: productCodes.id })
      .from(productCodes)
      .where(and(eq(productCodes.variantId, VARIANT), eq(productCodes.isUsed, false)));
    const remove = (id: number) => call(STOCK, { form: { intent: "delete", id: String(id) }, cookie: adminCookie });

    expect((await remove(inStock[0]!.id)).status).toBe(200); // 3 left: above the threshold
    expect(await alertsTo(admin.email)).toHaveLength(before);
    expect((await remove(inStock[1]!.id)).status).toBe(200); // 2 left: at the threshold
    expect(await available()).toBe(2);
    expect(await alertsTo(admin.email)).toHaveLength(before + 1);

    // A code already deleted is refused and changes nothing.
    const again = await remove(inStock[1]!.id);
    expect(again.status).toBe(409);
    expect(await available()).toBe(2);
    expect(await alertsTo(admin.email)).toHaveLength(before + 1);
  });
});
