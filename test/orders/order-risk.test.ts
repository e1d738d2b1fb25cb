// An order's risk through the Worker: a disposable-mail buyer and a key used from another country
// than the order's are marked on the order page; such orders are keyed unless staff choose to hold
// risky orders, which is off by default. Runs in a database of its own: it changes a shop setting.
import { exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { RISK_REASON_LABEL } from "~/lib/fraud";
import { addCodes } from "~/server/keys/stock.server";
import { productCodes } from "~/server/platform/db/schema.server";
import { call, createAccount, db, deliver, hwid, nextId, ORIGIN, paidOrderPayload, saveFraudSettings, signIn, unique } from "../helpers";

async function stockedOrder(email: string, country = "US") {
  const variant = nextId();
  const code = `LIC-${variant}`;
  await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: "Vertex Rust - 1 Week" }, code);
  const order = {
    ...paidOrderPayload({ variant, variantTitle: "1 Week", price: "29.99" }, { email }),
    billing_address: { country_code: country },
  };
  return { order, code };
}
const keysOf = (orderId: number) =>
  db
    .select()
    .from(productCodes)
    .where(eq(productCodes.orderId, String(orderId)));
const escaped = (text: string) => text.replace(/'/g, "&#x27;");

let staff: string | undefined;
const admin = async () => (staff ??= await signIn(await createAccount({ admin: true }), "192.0.2.240"));
const orderPage = async (id: number) => (await call(`/dashboard/orders/shopify/${id}`, { cookie: await admin() })).text();

describe("order risk", () => {
  it("marks a disposable-mail order and keys it while holding risky orders is off (the default)", async () => {
    const { order } = await stockedOrder(`${unique("x")}@mailinator.com`);
    await deliver("orders/paid", order);
    expect(await keysOf(order.id)).toHaveLength(1);
    const page = await orderPage(order.id);
    expect(page).toContain(escaped(RISK_REASON_LABEL["disposable-email"]));
    expect(page).not.toContain("Held for review");
  });

  it("marks an order whose key is used from another country than the order's", async () => {
    const { order, code } = await stockedOrder(`${unique("buyer")}@example.test`, "US");
    await deliver("orders/paid", order);
    expect(await orderPage(order.id)).not.toContain(escaped(RISK_REASON_LABEL["country-mismatch"]));
    const response = await exports.default.fetch(
      new Request(`${ORIGIN}/api/v1/licences/validate`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": "203.0.113.50" },
        body: JSON.stringify({ key: code, hwid: hwid(), nonce: unique("nonce-0123456789") }),
        cf: { city: "Berlin", country: "DE" },
      } as RequestInit),
    );
    expect(((await response.json()) as { code: string }).code).toBe("VALID");
    expect(await orderPage(order.id)).toContain(escaped(RISK_REASON_LABEL["country-mismatch"]));
  });

  it("holds risky orders for review once staff turn the hold on", async () => {
    const saved = await saveFraudSettings(await admin(), { holdRiskyOrders: "on" });
    expect(saved.status).toBe(200);
    const { order } = await stockedOrder(`${unique("x")}@yopmail.com`);
    await deliver("orders/paid", order);
    expect(await keysOf(order.id)).toHaveLength(0);
    expect(await orderPage(order.id)).toContain("Held for review");
    const fine = await stockedOrder(`${unique("buyer")}@example.test`);
    await deliver("orders/paid", fine.order);
    expect(await keysOf(fine.order.id)).toHaveLength(1);
  });
});
