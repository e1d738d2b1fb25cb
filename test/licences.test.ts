import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addCodes } from "~/server/fulfilment/stock.server";
import { licences, userSubscriptions } from "~/server/platform/db/schema.server";
import { signWebhookBody } from "~/server/platform/shopify-hmac.server";
import { createAccount, db, ORIGIN, unique } from "./helpers";

let nextNumber = 8_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
const nextId = () => ++nextNumber;

/** A key sold through a signed Shopify order webhook, as the shop sells them. */
async function boughtKey(variantTitle = "1 Week", email = `${unique("buyer")}@example.test`) {
  const variant = nextId();
  const code = `LIC-${variant}`;
  await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: `Vertex Rust - ${variantTitle}` }, code);
  const orderId = nextId();
  const body = JSON.stringify({
    id: orderId,
    name: `#${orderId % 100000}`,
    email,
    currency: "USD",
    total_price: "29.99",
    financial_status: "paid",
    line_items: [{ id: nextId(), variant_id: variant, quantity: 1, title: "Vertex Rust", variant_title: variantTitle, price: "29.99" }],
  });
  const headers = new Headers({
    "Content-Type": "application/json",
    "X-Shopify-Topic": "orders/paid",
    "X-Shopify-Webhook-Id": crypto.randomUUID(),
    "X-Shopify-Hmac-Sha256": await signWebhookBody(body, env.SHOPIFY_WEBHOOK_SECRET),
  });
  const response = await exports.default.fetch(new Request(`${ORIGIN}/webhooks/shopify`, { method: "POST", headers, body }));
  expect(response.status).toBe(200);
  return { key: code, email, orderId };
}

const hwid = (name = unique("pc")) => `HWID-${name}-0123456789`;
const nonce = () => crypto.randomUUID();

async function validate(body: unknown, ip = `203.0.113.${Math.floor(Math.random() * 250)}`) {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/api/v1/licences/validate`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return { response, text, json: JSON.parse(text) };
}

describe("licence validation", () => {
  it("activates a key on its first valid call and binds that PC", async () => {
    const { key } = await boughtKey("1 Week");
    const pc = hwid();
    const sent = nonce();
    const first = await validate({ key, hwid: pc, nonce: sent });
    expect(first.response.status).toBe(200);
    expect(first.json).toMatchObject({ valid: true, code: "VALID", nonce: sent, licence: { product: "Vertex Rust", plan: "weekly" } });
    const { activatedAt, expiresAt } = first.json.licence;
    expect(Date.parse(expiresAt) - Date.parse(activatedAt)).toBe(7 * 24 * 3600 * 1000);
    expect(first.response.headers.get("Licence-Signature")).toBeTruthy();

    const again = await validate({ key, hwid: pc, nonce: nonce() });
    expect(again.json).toMatchObject({ code: "VALID", licence: { activatedAt, expiresAt } });
    const other = await validate({ key, hwid: hwid(), nonce: nonce() });
    expect(other.json).toMatchObject({ valid: false, code: "HWID_MISMATCH" });
    const row = await db.select().from(licences).where(eq(licences.key, key)).get();
    expect(row?.hwid).toBe(pc);
  });

  it("answers NOT_FOUND with no licence for an unknown key", async () => {
    const { json } = await validate({ key: "NOPE-123", hwid: hwid(), nonce: nonce() });
    expect(json).toMatchObject({ valid: false, code: "NOT_FOUND", licence: null, ttl: 0 });
  });

  it("refuses malformed requests with 400 and a JSON error", async () => {
    for (const body of ["not json", "[]", { key: "K", hwid: "short", nonce: nonce() }, { key: "K", hwid: hwid(), nonce: "tiny" }]) {
      const { response, json } = await validate(body);
      expect(response.status).toBe(400);
      expect(json.error.code).toBe("INVALID_REQUEST");
    }
  });

  it("lets a subscription's clock start at activation", async () => {
    const account = await createAccount();
    const { key } = await boughtKey("30 Days", account.email);
    const before = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get();
    expect(before).toMatchObject({ status: "active", expiryDate: null });
    const { json } = await validate({ key, hwid: hwid(), nonce: nonce() });
    const after = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get();
    expect(after?.expiryDate).toBe(Date.parse(json.licence.expiresAt));
  });
});
