// Sales at a glance: admins only; figures computed from known orders of every source (what counts
// and what is left out), read back from the charts' tables of numbers; the charts are SVG drawn on
// the server and add nothing to the storefront.
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { cryptoOrders, licences, productCodes, resellerLedger, shopifyOrders, stockAlerts } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, deliver, hwid, nextId, paidOrderPayload, signIn, unique, validate } from "../helpers";

const DAY = 24 * 60 * 60 * 1000;
const text = (html: string) => html.replaceAll("<!-- -->", "");

async function adminCookie() {
  return signIn(await createAccount({ admin: true }), unique("ip"));
}

/** The cells of the numbers table's row whose header is `label`. */
function tableRow(html: string, label: string): string[] {
  const match = new RegExp(`<th scope="row"[^>]*>${label.replace(/[()]/g, "\\$&")}</th>(.*?)</tr>`).exec(html);
  if (!match) throw new Error(`no row ${label}`);
  return [...match[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]!);
}

const dayLabel = (ms: number) => new Date(ms).toLocaleDateString("en-US", { month: "short", day: "2-digit", timeZone: "UTC" });

async function shopify(values: Partial<typeof shopifyOrders.$inferInsert> & { receivedAt: number }) {
  await db
    .insert(shopifyOrders)
    .values({ id: unique("order"), email: "buyer@example.test", currency: "USD", lineItems: "[]", totalPrice: "0", ...values });
}

async function crypto(
  userId: string,
  values: {
    status: "complete" | "processing";
    purpose?: "key" | "top-up";
    cryptoType: "BTC" | "LTC";
    amountCents: number;
    createdAt: number;
  },
) {
  await db.insert(cryptoOrders).values({
    id: globalThis.crypto.randomUUID(),
    orderNumber: `CRYPTO-${unique("S").toUpperCase()}`,
    userId,
    productTitle: "Vertex Rust",
    variantTitle: "30 Days",
    variantId: "gid://shopify/ProductVariant/1",
    customerEmail: "buyer@example.test",
    currency: "USD",
    walletAddress: `bc1q${unique()}`,
    updatedAt: values.createdAt,
    ...values,
  });
}

describe("who may see sales", () => {
  it("answers 403 to members and support, 200 to admins", async () => {
    for (const account of [await createAccount(), await createAccount({ role: "support" })]) {
      const cookie = await signIn(account, unique("ip"));
      expect((await call("/dashboard/sales", { cookie })).status).toBe(403);
      expect((await call("/dashboard/sales.data", { cookie })).status).toBe(403);
    }
    expect((await call("/dashboard/sales", { cookie: await adminCookie() })).status).toBe(200);
    expect((await call("/dashboard/sales")).headers.get("Location")).toBe("/auth");
  });
});

describe("the figures", () => {
  it("shows the empty state, then counts paid orders per day and method, units, stock and resellers", async () => {
    const cookie = await adminCookie();
    const empty = text(await (await call("/dashboard/sales", { cookie })).text());
    expect(empty).toContain("No paid orders in US dollars in the last 30 days.");
    expect(empty).toContain("No keys handed out in the last 30 days.");
    expect(empty).toContain("No reseller purchases in the last 30 days.");

    const now = Date.now();
    const today = now - 1000;
    const threeDaysAgo = now - 3 * DAY;
    const buyer = await createAccount();
    const [resellerA, resellerB] = [await createAccount(), await createAccount()];

    // Card: paid (counted), refunded and cancelled (left out), unpaid (not counted), EUR (beside),
    // 40 days old (outside the period).
    await shopify({ totalPrice: "29.99", paidAt: today, receivedAt: today });
    await shopify({ totalPrice: "10.00", paidAt: threeDaysAgo, receivedAt: threeDaysAgo });
    await shopify({ totalPrice: "50.00", paidAt: today, refundedAt: today, receivedAt: today });
    await shopify({ totalPrice: "70.00", paidAt: today, cancelledAt: today, receivedAt: today });
    await shopify({ totalPrice: "99.00", receivedAt: today });
    await shopify({ totalPrice: "15.50", currency: "EUR", paidAt: today, receivedAt: today });
    await shopify({ totalPrice: "500.00", paidAt: now - 40 * DAY, receivedAt: now - 40 * DAY });
    // Crypto: a complete BTC key order (counted), an LTC top-up (counted when spent), one not complete.
    await crypto(buyer.id, { status: "complete", cryptoType: "BTC", amountCents: 8999, createdAt: today });
    await crypto(buyer.id, { status: "complete", purpose: "top-up", cryptoType: "LTC", amountCents: 5000, createdAt: today });
    await crypto(buyer.id, { status: "processing", cryptoType: "LTC", amountCents: 2999, createdAt: today });
    // Reseller purchases from the balance (negative ledger entries), and a credit that is no sale.
    await db.insert(resellerLedger).values([
      { userId: resellerA.id, kind: "purchase", amountCents: -2500, createdAt: today },
      { userId: resellerA.id, kind: "purchase", amountCents: -1000, createdAt: threeDaysAgo },
      { userId: resellerB.id, kind: "purchase", amountCents: -500, createdAt: today },
      { userId: resellerB.id, kind: "credit", amountCents: 10000, createdAt: today },
    ]);
    // Units: three keys of one variant sold today (one later revoked), one of another; stock of a third.
    const sold = (title: string, extra: Partial<typeof productCodes.$inferInsert> = {}) => ({
      variantId: `gid://shopify/ProductVariant/${title}`,
      variantTitle: title,
      code: unique("SALE-"),
      isUsed: true,
      usedAt: today,
      createdAt: today,
      ...extra,
    });
    await db
      .insert(productCodes)
      .values([
        sold("Sales Alpha"),
        sold("Sales Alpha"),
        sold("Sales Alpha"),
        sold("Sales Alpha", { revokedAt: today }),
        sold("Sales Beta"),
        sold("Sales Gamma", { isUsed: false, usedAt: null }),
        sold("Sales Gamma", { isUsed: false, usedAt: null }),
      ]);
    await db.insert(stockAlerts).values({ variantId: "gid://shopify/ProductVariant/Sales Gamma", threshold: 5 });

    const response = await call("/dashboard/sales", { cookie });
    expect(response.status).toBe(200);
    const html = text(await response.text());
    // Today: card 29.99, BTC 89.99, LTC 0, balance 25 + 5; three days ago: card 10, balance 10.
    expect(tableRow(html, dayLabel(today))).toEqual(["$29.99", "$89.99", "$0.00", "$30.00", "$149.98"]);
    expect(tableRow(html, dayLabel(threeDaysAgo))).toEqual(["$10.00", "$0.00", "$0.00", "$10.00", "$20.00"]);
    expect(html).toContain("$169.98");
    expect(html).toContain("Also paid in other currencies (not in the chart): 15.50 EUR in 1 order(s).");
    expect(html).toContain("Refunded or cancelled in this period (left out): 120.00 USD in 2 order(s).");
    expect(tableRow(html, "Sales Alpha")).toEqual(["3"]);
    expect(tableRow(html, "Sales Beta")).toEqual(["1"]);
    expect(tableRow(html, "Sales Gamma")).toEqual(["2", "5"]);
    expect(tableRow(html, `${resellerA.username} (2 purchases)`)).toEqual(["$35.00"]);
    expect(tableRow(html, `${resellerB.username} (1 purchase)`)).toEqual(["$5.00"]);
    expect(html.indexOf(resellerA.username)).toBeLessThan(html.indexOf(resellerB.username));
    // Thirty days of rows, all present even when empty.
    expect(tableRow(html, dayLabel(now - 29 * DAY))).toEqual(["$0.00", "$0.00", "$0.00", "$0.00", "$0.00"]);
    expect(() => tableRow(html, dayLabel(now - 30 * DAY))).toThrow();
  });
});

describe("renewals", () => {
  /** The figure under `label` in the Renewals section, and the line below it. */
  const figure = (html: string, label: string) => {
    const match = new RegExp(`<dt class="text-muted">${label}</dt><dd[^>]*>([^<]*)</dd>(?:<dd[^>]*>([^<]*)</dd>)?`).exec(html);
    if (!match) throw new Error(`no figure ${label}`);
    return [match[1], match[2]];
  };
  const renew = async (licenceId: number, email: string, line: { variantTitle: string; price: string; discount?: string }) => {
    const order = paidOrderPayload(
      { variant: nextId(), variantTitle: line.variantTitle, title: "Vertex Rust", price: line.price },
      { email },
    );
    await deliver("orders/paid", {
      ...order,
      note_attributes: [{ name: "_renews_licence", value: String(licenceId) }],
      line_items: order.line_items.map((l) => ({ ...l, total_discount: line.discount ?? "0.00" })),
    });
  };
  /** A weekly licence bound to a PC whose end is moved to `endsAt`, as time passing would. */
  const licenceEnding = async (endsAt: number) => {
    const { key, email } = await boughtKey("1 Week");
    expect((await validate({ key, hwid: hwid(), nonce: globalThis.crypto.randomUUID() })).json.code).toBe("VALID");
    await db.update(licences).set({ expiresAt: endsAt }).where(eq(licences.key, key));
    return { id: (await db.select().from(licences).where(eq(licences.key, key)).get())!.id, email };
  };

  it("shows renewals apart from new purchases, the share of licences ended in the period renewed within 7 days, and upgrades' revenue", async () => {
    const cookie = await adminCookie();
    const before = text(await (await call("/dashboard/sales", { cookie })).text());
    const purchasesBefore = Number(figure(before, "New purchases")[0]!.replace(/,/g, ""));
    const now = Date.now();
    const inTime = await licenceEnding(now - 3 * DAY);
    const late = await licenceEnding(now - 10 * DAY);
    await licenceEnding(now - 2 * DAY);
    const upgraded = await licenceEnding(now + 3.5 * DAY);
    await renew(inTime.id, inTime.email, { variantTitle: "1 Week", price: "29.99" });
    await renew(late.id, late.email, { variantTitle: "1 Week", price: "29.99" });
    // A monthly line at its price, less the unused three days' credit: $89.99 - $12.85.
    await renew(upgraded.id, upgraded.email, { variantTitle: "30 Days", price: "89.99", discount: "12.85" });

    const html = text(await (await call("/dashboard/sales", { cookie })).text());
    // Four keys bought; the renewals and the upgrade handed out none.
    expect(Number(figure(html, "New purchases")[0]!.replace(/,/g, ""))).toBe(purchasesBefore + 4);
    expect(figure(html, "Renewals")).toEqual(["2", "$59.98"]);
    // Three licences ended in the period: one renewed in time, one late, one not at all.
    expect(figure(html, "Renewed within 7 days")).toEqual(["33%", "1 of 3 that ended"]);
    expect(figure(html, "Upgrades")).toEqual(["$77.14", "1 upgrade"]);
  });
});

describe("the charts", () => {
  it("are accessible SVG in the page, and the storefront gets no script from them", async () => {
    const html = await (await call("/dashboard/sales", { cookie: await adminCookie() })).text();
    const svgs = [...html.matchAll(/<svg viewBox="0 0 320 [\d.]+" role="img" aria-labelledby="([^"]+)"/g)];
    expect(svgs.length).toBeGreaterThanOrEqual(1);
    expect(html).toContain("<summary");
    expect(html).toContain("Show the numbers");
    expect(html).toMatch(/<title id="[^"]+">Available codes per variant<\/title>/);
    const home = await (await call("/")).text();
    // Every module the home page names (its scripts load after the first paint, decision 025).
    const modules = [...home.matchAll(/["'(](\/[^"'()\s]+\.(?:js|mjs|ts|tsx))["')]/g)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(0);
    for (const module of modules) expect(module).not.toMatch(/sales|audit|bar-chart|low-stock|stock-levels|field-table/);
    expect(home).not.toContain("Show the numbers");
  });
});
