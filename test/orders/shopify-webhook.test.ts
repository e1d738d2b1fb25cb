import { env, exports } from "cloudflare:workers";
import { and, count, eq, isNull, like } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { addCodes } from "~/server/keys/stock.server";
import {
  backorders,
  failedJobs,
  mailOutbox,
  productCodes,
  shopifyOrders,
  userSubscriptions,
  webhookDeliveries,
} from "~/server/platform/db/schema.server";
import { fillBackordersAndNotify } from "~/server/orders/fulfil-order.server";
import { MAX_DELIVERY_BYTES } from "~/server/orders/shopify-webhook.server";
import { signWebhookBody } from "~/server/platform/shopify-hmac.server";
import { call, createAccount, db, handled, ORIGIN, pulledBody, signIn, unique } from "../helpers";

let nextNumber = 7_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
const nextId = () => ++nextNumber;

/** A fresh variant with `n` codes in stock, so tests never share stock. */
async function stockedVariant(n: number) {
  const numeric = nextId();
  const gid = `gid://shopify/ProductVariant/${numeric}`;
  if (n > 0) {
    await addCodes(db, { id: gid, title: "Vertex Rust - 30 Days" }, Array.from({ length: n }, (_, i) => `KEY-${numeric}-${i}`).join("\n"));
  }
  return { numeric, gid };
}

function orderPayload(opts: { lines: { variant: number; quantity?: number }[]; email?: string; financial?: string | null; id?: number }) {
  const id = opts.id ?? nextId();
  return {
    id,
    name: `#${id % 100000}`,
    email: opts.email ?? `${unique("buyer")}@example.test`,
    currency: "USD",
    total_price: "89.99",
    financial_status: opts.financial === undefined ? "paid" : opts.financial,
    line_items: opts.lines.map((l) => ({
      id: nextId(),
      variant_id: l.variant,
      quantity: l.quantity ?? 1,
      title: "Vertex Rust",
      variant_title: "30 Days",
      price: "89.99",
    })),
  };
}

async function deliver(topic: string, payload: unknown, opts: { webhookId?: string; secret?: string; signature?: string | null } = {}) {
  const body = JSON.stringify(payload);
  const headers = new Headers({
    "Content-Type": "application/json",
    "X-Shopify-Topic": topic,
    "X-Shopify-Webhook-Id": opts.webhookId ?? crypto.randomUUID(),
  });
  const signature = opts.signature === undefined ? await signWebhookBody(body, opts.secret ?? env.SHOPIFY_WEBHOOK_SECRET) : opts.signature;
  if (signature !== null) headers.set("X-Shopify-Hmac-Sha256", signature);
  const response = await exports.default.fetch(new Request(`${ORIGIN}/webhooks/shopify`, { method: "POST", headers, body }));
  // Accepted deliveries are handled by the fulfilment queue's consumer: wait for it.
  if (response.status === 200) await handled(headers.get("X-Shopify-Webhook-Id")!);
  return response;
}

const codesOf = (orderId: number | string) =>
  db
    .select()
    .from(productCodes)
    .where(eq(productCodes.orderId, String(orderId)));
const mailsTo = (email: string) => db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email));

describe("order webhook: authenticity", () => {
  it("refuses a missing, wrong or foreign signature with 401 and changes nothing", async () => {
    const variant = await stockedVariant(2);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }] });
    const webhookId = crypto.randomUUID();
    const attempts = [
      await deliver("orders/create", payload, { webhookId, signature: null }),
      await deliver("orders/create", payload, { webhookId, secret: "not-the-secret" }),
      await deliver("orders/create", payload, { webhookId, signature: "garbage" }),
      // A valid signature of a different body does not cover this one.
      await deliver("orders/create", payload, { webhookId, signature: await signWebhookBody("{}", env.SHOPIFY_WEBHOOK_SECRET) }),
    ];
    expect(attempts.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    expect(await codesOf(payload.id)).toHaveLength(0);
    expect(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, webhookId)).get()).toBeUndefined();
    expect(
      await db
        .select()
        .from(shopifyOrders)
        .where(eq(shopifyOrders.id, String(payload.id)))
        .get(),
    ).toBeUndefined();
    expect(await mailsTo(payload.email)).toHaveLength(0);
  });

  it("is exempt from the browser CSRF check but not from the signature", async () => {
    const response = await exports.default.fetch(
      new Request(`${ORIGIN}/webhooks/shopify`, {
        method: "POST",
        headers: { Origin: "https://evil.example", "X-Shopify-Topic": "orders/create" },
        body: "{}",
      }),
    );
    expect(response.status).toBe(401);
  });
});

describe("order webhook: size limit", () => {
  const CHUNK = 64 * 1024;
  const recorded = (webhookId: string) => db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, webhookId)).get();
  const post = (webhookId: string, body: BodyInit, headers: Record<string, string> = {}) =>
    exports.default.fetch(
      new Request(`${ORIGIN}/webhooks/shopify`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Shopify-Topic": "orders/create", "X-Shopify-Webhook-Id": webhookId, ...headers },
        body,
      }),
    );

  it("refuses a body declared over 1 MB with 413, signed or not, and records nothing", async () => {
    // Shaped like an order, one byte over the cap, with a signature that is right for it.
    const padded = JSON.stringify({ ...orderPayload({ lines: [{ variant: 1 }] }), note: "" });
    const body = padded.replace('"note":""', `"note":"${"x".repeat(MAX_DELIVERY_BYTES + 1 - padded.length)}"`);
    expect(new TextEncoder().encode(body).byteLength).toBe(MAX_DELIVERY_BYTES + 1);
    for (const signature of [await signWebhookBody(body, env.SHOPIFY_WEBHOOK_SECRET), null]) {
      const webhookId = crypto.randomUUID();
      const response = await post(webhookId, body, signature ? { "X-Shopify-Hmac-Sha256": signature } : {});
      expect([signature !== null, response.status]).toEqual([signature !== null, 413]);
      expect(await recorded(webhookId)).toBeUndefined();
    }
  });

  it("answers a declared oversized body before reading it", async () => {
    const webhookId = crypto.randomUUID();
    const body = pulledBody("x".repeat(CHUNK), 64);
    const signature = await signWebhookBody("{}", env.SHOPIFY_WEBHOOK_SECRET);
    const response = await post(webhookId, body.stream, { "Content-Length": String(64 * CHUNK), "X-Shopify-Hmac-Sha256": signature });
    expect(response.status).toBe(413);
    expect(await response.text()).toBe("This payload is too large.");
    // The runtime passes the cancel back to the sender's stream once the exchange is over; only
    // then is the count final.
    await vi.waitFor(() => expect(body.cancelled()).toBe(true), { timeout: 5000 });
    // Whatever the runtime had started to pass on, nowhere near the cap was read.
    expect(body.pulledBytes()).toBeLessThan(MAX_DELIVERY_BYTES);
    expect(await recorded(webhookId)).toBeUndefined();
  });

  it("reads a body of undeclared length only up to the cap, then stops", async () => {
    const webhookId = crypto.randomUUID();
    // 200 MB if it were read to the end.
    const body = pulledBody("x".repeat(CHUNK), 3200);
    const response = await post(webhookId, body.stream, {
      "X-Shopify-Hmac-Sha256": await signWebhookBody("{}", env.SHOPIFY_WEBHOOK_SECRET),
    });
    expect(response.status).toBe(413);
    expect(await response.text()).toBe("This payload is too large.");
    await vi.waitFor(() => expect(body.cancelled()).toBe(true), { timeout: 5000 });
    expect(body.pulledBytes()).toBeGreaterThan(MAX_DELIVERY_BYTES);
    expect(body.pulledBytes()).toBeLessThanOrEqual(MAX_DELIVERY_BYTES + 4 * CHUNK);
    expect(await recorded(webhookId)).toBeUndefined();
  });

  it("still takes a signed delivery of undeclared length under the cap, and one of exactly 1 MB", async () => {
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }] });
    const text = JSON.stringify(payload);
    const chunkedId = crypto.randomUUID();
    const chunked = await post(chunkedId, pulledBody(text, 1).stream, {
      "X-Shopify-Hmac-Sha256": await signWebhookBody(text, env.SHOPIFY_WEBHOOK_SECRET),
    });
    expect(chunked.status).toBe(200);
    await handled(chunkedId);
    expect(await codesOf(payload.id)).toHaveLength(1);

    const atCap = JSON.stringify({ id: nextId(), note: "x".repeat(MAX_DELIVERY_BYTES - 30) }).padEnd(MAX_DELIVERY_BYTES, " ");
    const webhookId = crypto.randomUUID();
    const response = await post(webhookId, atCap, {
      "X-Shopify-Topic": "products/update",
      "X-Shopify-Hmac-Sha256": await signWebhookBody(atCap, env.SHOPIFY_WEBHOOK_SECRET),
    });
    expect(response.status).toBe(200);
    expect((await recorded(webhookId))?.outcome).toBe("ignored");
  });
});

describe("order webhook: handing out keys", () => {
  it("gives a paid order one key per unit, matching Shopify's numeric variant id to our GID", async () => {
    const variant = await stockedVariant(5);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 3 }] });
    const response = await deliver("orders/create", payload);
    expect(response.status).toBe(200);
    const codes = await codesOf(payload.id);
    expect(codes).toHaveLength(3);
    for (const code of codes) {
      expect(code).toMatchObject({ variantId: variant.gid, isUsed: true, customerEmail: payload.email, orderId: String(payload.id) });
      expect(code.usedAt).toBeTypeOf("number");
    }
    const [mail] = await mailsTo(payload.email);
    for (const code of codes) expect(mail!.textBody).toContain(code.code);
  });

  it("hands out one set of keys and one e-mail however often a delivery is repeated", async () => {
    const variant = await stockedVariant(10);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 2 }] });
    const webhookId = crypto.randomUUID();
    for (let i = 0; i < 10; i++) expect((await deliver("orders/create", payload, { webhookId })).status).toBe(200);
    // Replays under new delivery ids too.
    for (let i = 0; i < 3; i++) expect((await deliver("orders/create", payload)).status).toBe(200);
    expect(await codesOf(payload.id)).toHaveLength(2);
    expect(await mailsTo(payload.email)).toHaveLength(1);
    const [available] = await db
      .select({ n: count() })
      .from(productCodes)
      .where(and(eq(productCodes.variantId, variant.gid), eq(productCodes.isUsed, false)));
    expect(available!.n).toBe(8);
  });

  it("delivers once when both orders/create (paid) and orders/paid arrive, even at the same time", async () => {
    const variant = await stockedVariant(4);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 2 }] });
    const [a, b] = await Promise.all([deliver("orders/create", payload), deliver("orders/paid", payload)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    await deliver("orders/paid", payload);
    expect(await codesOf(payload.id)).toHaveLength(2);
    expect(await mailsTo(payload.email)).toHaveLength(1);
  });

  it("hands out nothing for an unpaid order, then delivers when orders/paid arrives", async () => {
    const variant = await stockedVariant(2);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }], financial: "pending" });
    expect((await deliver("orders/create", payload)).status).toBe(200);
    expect(await codesOf(payload.id)).toHaveLength(0);
    expect(await mailsTo(payload.email)).toHaveLength(0);
    const delivery = await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.orderId, String(payload.id)))
      .get();
    expect(delivery?.detail).toMatch(/Not paid yet/);

    expect((await deliver("orders/paid", { ...payload, financial_status: "paid" })).status).toBe(200);
    expect(await codesOf(payload.id)).toHaveLength(1);
    expect(await mailsTo(payload.email)).toHaveLength(1);
  });

  it("never oversells: 100 concurrent orders against 50 codes give 50 distinct keys and 50 backorders, filled when stock arrives", async () => {
    const variant = await stockedVariant(50);
    const payloads = Array.from({ length: 100 }, () => orderPayload({ lines: [{ variant: variant.numeric }] }));
    const responses = await Promise.all(payloads.map((p) => deliver("orders/create", p)));
    expect(responses.every((r) => r.status === 200)).toBe(true);

    const sold = await db.select().from(productCodes).where(eq(productCodes.variantId, variant.gid));
    const assigned = sold.filter((c) => c.isUsed);
    expect(assigned).toHaveLength(50);
    expect(new Set(assigned.map((c) => c.orderId)).size).toBe(50);
    expect(new Set(assigned.map((c) => c.code)).size).toBe(50);
    const waiting = await db
      .select()
      .from(backorders)
      .where(and(eq(backorders.variantId, variant.gid), isNull(backorders.filledAt)));
    expect(waiting).toHaveLength(50);
    // No order both got a key and waits for one.
    const keyed = new Set(assigned.map((c) => c.orderId));
    expect(waiting.some((b) => keyed.has(b.orderId))).toBe(false);

    // Admins are told about the backorders.
    const admin = await createAccount({ admin: true });
    const late = orderPayload({ lines: [{ variant: variant.numeric }] });
    await deliver("orders/create", late);
    expect((await mailsTo(admin.email)).some((m) => m.subject.startsWith("Backorder:"))).toBe(true);

    // New stock fills the queue first-in-first-out and mails each buyer their key.
    await addCodes(
      db,
      { id: variant.gid, title: "Vertex Rust - 30 Days" },
      Array.from({ length: 51 }, (_, i) => `RESTOCK-${variant.numeric}-${i}`).join("\n"),
    );
    const filled = await fillBackordersAndNotify({ db, mail: env, waitUntil: () => {} }, variant.gid);
    expect(filled).toHaveLength(51);
    expect(filled.map((f) => f.backorder.id)).toEqual([...filled.map((f) => f.backorder.id)].sort((a, b) => a - b));
    const all = await db
      .select()
      .from(productCodes)
      .where(and(eq(productCodes.variantId, variant.gid), eq(productCodes.isUsed, true)));
    expect(all).toHaveLength(101);
    expect(new Set(all.map((c) => c.orderId)).size).toBe(101);
    const stillWaiting = await db
      .select()
      .from(backorders)
      .where(and(eq(backorders.variantId, variant.gid), isNull(backorders.filledAt)));
    expect(stillWaiting).toHaveLength(0);
    const buyer = payloads.find((p) => waiting.some((b) => b.orderId === String(p.id)))!;
    const mails = await mailsTo(buyer.email);
    expect(mails.some((m) => m.subject.includes("is ready"))).toBe(true);
    // The order's own e-mail, sent while it waited, promised the key rather than announced it.
    expect(mails.map((m) => m.subject)).toContain(`Order ${buyer.name} received — your key follows soon`);
  });

  it("mails a waiting unit's key even when a concurrent restock claimed the code for it", async () => {
    const variant = await stockedVariant(0);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }] });
    await deliver("orders/create", payload);
    // Another filler has claimed a code for the unit but not yet marked the unit filled.
    await db.insert(productCodes).values({
      variantId: variant.gid,
      variantTitle: "Vertex Rust - 30 Days",
      code: `CLAIMED-${variant.numeric}`,
      createdAt: Date.now(),
      isUsed: true,
      usedAt: Date.now(),
      customerEmail: payload.email,
      orderId: String(payload.id),
      orderLineId: String(payload.line_items[0]!.id),
      unitIndex: 0,
    });
    const filled = await fillBackordersAndNotify({ db, mail: env, waitUntil: () => {} }, variant.gid);
    expect(filled.map((f) => f.code.code)).toEqual([`CLAIMED-${variant.numeric}`]);
    expect((await mailsTo(payload.email)).some((m) => m.textBody.includes(`CLAIMED-${variant.numeric}`))).toBe(true);
  });

  it("puts a code back when its waiting unit is cancelled while the code is being claimed", async () => {
    const variant = await stockedVariant(0);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }] });
    await deliver("orders/create", payload);
    await addCodes(db, { id: variant.gid, title: "Vertex Rust - 30 Days" }, `LATE-${variant.numeric}`);
    const trigger = `cancel_backorder_${payload.id}`;
    await env.DB.exec(
      // What orders/cancelled does, landing between the claim and the fill.
      `CREATE TRIGGER ${trigger} AFTER UPDATE OF is_used ON product_codes WHEN NEW.order_id = '${payload.id}' BEGIN UPDATE backorders SET cancelled_at = 1 WHERE order_id = '${payload.id}'; UPDATE product_codes SET revoked_at = 1 WHERE order_id = '${payload.id}'; END;`,
    );
    const filled = await fillBackordersAndNotify({ db, mail: env, waitUntil: () => {} }, variant.gid);
    await env.DB.exec(`DROP TRIGGER ${trigger};`);
    expect(filled).toHaveLength(0);
    expect(
      await db
        .select()
        .from(productCodes)
        .where(eq(productCodes.code, `LATE-${variant.numeric}`))
        .get(),
    ).toMatchObject({ isUsed: false, orderId: null, revokedAt: null });
  });

  it("creates a subscription per key for a buyer with a verified account, without an expiry until the key is activated", async () => {
    const member = await createAccount();
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }], email: member.email.toUpperCase() });
    await deliver("orders/create", payload);
    const [code] = await codesOf(payload.id);
    const subscription = await db.select().from(userSubscriptions).where(eq(userSubscriptions.productCodeId, code!.id)).get();
    expect(subscription).toMatchObject({
      userId: member.id,
      status: "active",
      productTitle: "Vertex Rust",
      variantTitle: "30 Days",
      priceAmount: "89.99",
      priceCurrency: "USD",
    });
    // The plan's 30 days run from the key's first use (see licences.test.ts), not from the sale.
    expect(subscription!.expiryDate).toBeNull();
  });

  it("gives the subscriptions to an account that verifies its address after buying", async () => {
    const email = `${unique("later")}@example.test`;
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }], email });
    await deliver("orders/create", payload);
    const member = await createAccount({ verified: false });
    const { users } = await import("~/server/platform/db/schema.server");
    await db.update(users).set({ email }).where(eq(users.id, member.id));
    const { claimSubscriptions } = await import("~/server/licences/subscriptions.server");
    expect(await claimSubscriptions(db, member.id, email)).toBe(1);
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, member.id))).toHaveLength(1);
  });
});

describe("order names", () => {
  it("shows the buyer and the admin the order's name (#…), with Shopify's id only as a detail for the admin", async () => {
    const member = await createAccount();
    const admin = await createAccount({ admin: true });
    const [inStock, soldOut] = [await stockedVariant(1), await stockedVariant(0)];
    const payload = orderPayload({ lines: [{ variant: inStock.numeric }, { variant: soldOut.numeric }], email: member.email });
    payload.name = `#${unique("N")}`;
    expect((await deliver("orders/create", payload)).status).toBe(200);

    const buyerPage = await (await call("/dashboard/subscriptions", { cookie: await signIn(member, unique("ip")) })).text();
    expect(buyerPage).toContain(`Order ${payload.name}`);
    expect(buyerPage).not.toContain(`Order ${payload.id}`);

    const adminPage = await (
      await call(`/dashboard/manage-codes?sold=${encodeURIComponent(inStock.gid)}&period=all`, {
        cookie: await signIn(admin, unique("ip")),
      })
    ).text();
    const card = (from: string, to?: string) => adminPage.slice(adminPage.indexOf(from), to ? adminPage.indexOf(to) : undefined);
    for (const section of [
      card("Sold Codes (", "Backorders ("),
      card("Backorders (", "Crypto Orders to Fulfill"),
      card("Webhook Integration"),
    ]) {
      expect(section).toContain(`Order ${payload.name}`);
      expect(section).toContain(`ID ${payload.id}`);
    }
  });

  it("names a crypto order's key by its order number, with no second id", async () => {
    const admin = await createAccount({ admin: true });
    const variant = await stockedVariant(1);
    const [code] = await db.select().from(productCodes).where(eq(productCodes.variantId, variant.gid));
    // A crypto order's key records the order number as its order.
    const orderNumber = `CRYPTO-${unique("X").toUpperCase()}`;
    await db
      .update(productCodes)
      .set({ isUsed: true, usedAt: Date.now(), customerEmail: "c@example.test", orderId: orderNumber, orderLineId: "crypto", unitIndex: 0 })
      .where(eq(productCodes.id, code!.id));
    const adminPage = await (
      await call(`/dashboard/manage-codes?sold=${encodeURIComponent(variant.gid)}&period=all`, {
        cookie: await signIn(admin, unique("ip")),
      })
    ).text();
    expect(adminPage).toContain(`Order ${orderNumber}`);
    expect(adminPage).not.toContain(`ID ${orderNumber}`);
  });
});

describe("order webhook: cancellations, refunds and bad input", () => {
  it("revokes the keys and ends the subscriptions of a fully refunded order", async () => {
    const member = await createAccount();
    const variant = await stockedVariant(2);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 2 }], email: member.email });
    await deliver("orders/create", payload);
    const line = payload.line_items[0]!.id;
    const response = await deliver("refunds/create", {
      id: nextId(),
      order_id: payload.id,
      refund_line_items: [{ line_item_id: line, quantity: 2 }],
    });
    expect(response.status).toBe(200);
    const codes = await codesOf(payload.id);
    expect(codes.every((c) => typeof c.revokedAt === "number")).toBe(true);
    const subscriptions = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, member.id));
    expect(subscriptions.map((s) => s.status)).toEqual(["revoked", "revoked"]);
    expect(
      (
        await db
          .select()
          .from(shopifyOrders)
          .where(eq(shopifyOrders.id, String(payload.id)))
          .get()
      )?.refundedAt,
    ).toBeTypeOf("number");
  });

  it("revokes only the refunded units of a partial refund, newest first", async () => {
    const variant = await stockedVariant(3);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 3 }] });
    await deliver("orders/create", payload);
    const line = payload.line_items[0]!.id;
    await deliver("refunds/create", { id: nextId(), order_id: payload.id, refund_line_items: [{ line_item_id: line, quantity: 1 }] });
    const codes = (await codesOf(payload.id)).sort((a, b) => a.unitIndex! - b.unitIndex!);
    expect(codes.map((c) => c.revokedAt !== null)).toEqual([false, false, true]);
    // A second partial refund takes the next unit, not the one already revoked.
    await deliver("refunds/create", { id: nextId(), order_id: payload.id, refund_line_items: [{ line_item_id: line, quantity: 1 }] });
    const after = (await codesOf(payload.id)).sort((a, b) => a.unitIndex! - b.unitIndex!);
    expect(after.map((c) => c.revokedAt !== null)).toEqual([false, true, true]);
  });

  it("takes waiting units out of the queue before revoking delivered keys", async () => {
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 2 }] });
    await deliver("orders/create", payload);
    await deliver("refunds/create", {
      id: nextId(),
      order_id: payload.id,
      refund_line_items: [{ line_item_id: payload.line_items[0]!.id, quantity: 1 }],
    });
    expect((await codesOf(payload.id)).map((c) => c.revokedAt)).toEqual([null]);
    const queue = await db
      .select()
      .from(backorders)
      .where(eq(backorders.orderId, String(payload.id)));
    expect(queue.map((b) => b.cancelledAt !== null)).toEqual([true]);
  });

  it("revokes nothing for a refund without line items (an amount or shipping only)", async () => {
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }] });
    await deliver("orders/create", payload);
    for (const refund of [{ refund_line_items: [] }, {}]) {
      expect((await deliver("refunds/create", { id: nextId(), order_id: payload.id, ...refund })).status).toBe(200);
    }
    expect((await codesOf(payload.id)).map((c) => c.revokedAt)).toEqual([null]);
    expect(
      (
        await db
          .select()
          .from(shopifyOrders)
          .where(eq(shopifyOrders.id, String(payload.id)))
          .get()
      )?.refundedAt,
    ).toBeNull();
  });

  it("ignores refunded units of another order's line", async () => {
    const variant = await stockedVariant(2);
    const mine = orderPayload({ lines: [{ variant: variant.numeric }] });
    const theirs = orderPayload({ lines: [{ variant: variant.numeric }] });
    await deliver("orders/create", mine);
    await deliver("orders/create", theirs);
    await deliver("refunds/create", {
      id: nextId(),
      order_id: mine.id,
      refund_line_items: [{ line_item_id: theirs.line_items[0]!.id, quantity: 1 }],
    });
    expect((await codesOf(mine.id)).map((c) => c.revokedAt)).toEqual([null]);
    expect((await codesOf(theirs.id)).map((c) => c.revokedAt)).toEqual([null]);
  });

  it("cancels and refunds orders larger than one database statement can list", async () => {
    const member = await createAccount();
    const variant = await stockedVariant(240);
    const big = orderPayload({ lines: [{ variant: variant.numeric, quantity: 120 }], email: member.email });
    const other = orderPayload({ lines: [{ variant: variant.numeric, quantity: 120 }] });
    await deliver("orders/create", big);
    await deliver("orders/create", other);
    expect((await deliver("orders/cancelled", { ...big, cancelled_at: new Date().toISOString() })).status).toBe(200);
    expect((await codesOf(big.id)).filter((c) => c.revokedAt === null)).toHaveLength(0);
    expect(
      (await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, member.id))).every((s) => s.status === "revoked"),
    ).toBe(true);
    const refund = await deliver("refunds/create", {
      id: nextId(),
      order_id: other.id,
      refund_line_items: [{ line_item_id: other.line_items[0]!.id, quantity: 110 }],
    });
    expect(refund.status).toBe(200);
    expect((await codesOf(other.id)).filter((c) => c.revokedAt === null)).toHaveLength(10);
  });

  it("applies a refund once, however often and under whatever delivery id it arrives", async () => {
    const variant = await stockedVariant(3);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 3 }] });
    await deliver("orders/create", payload);
    const refund = { id: nextId(), order_id: payload.id, refund_line_items: [{ line_item_id: payload.line_items[0]!.id, quantity: 1 }] };
    const answers = await Promise.all([
      deliver("refunds/create", refund),
      deliver("refunds/create", refund),
      deliver("refunds/create", refund),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await codesOf(payload.id)).filter((c) => c.revokedAt !== null)).toHaveLength(1);
  });

  it("keeps a refund that arrives before the payment and applies it when the keys are handed out", async () => {
    const variant = await stockedVariant(2);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 2 }] });
    const early = await deliver("refunds/create", {
      id: nextId(),
      order_id: payload.id,
      refund_line_items: [{ line_item_id: payload.line_items[0]!.id, quantity: 1 }],
    });
    expect(early.status).toBe(200);
    await deliver("orders/paid", payload);
    const codes = (await codesOf(payload.id)).sort((a, b) => a.unitIndex! - b.unitIndex!);
    expect(codes.map((c) => c.revokedAt !== null)).toEqual([false, true]);
    // The buyer's e-mail lists only the key they kept.
    const [mail] = await mailsTo(payload.email);
    expect(mail!.textBody).toContain(codes[0]!.code);
    expect(mail!.textBody).not.toContain(codes[1]!.code);
  });

  it("hands out and queues nothing for an order cancelled while its payment was being processed", async () => {
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 2 }] });
    await deliver("orders/cancelled", { ...payload, cancelled_at: new Date().toISOString() });
    const { fulfilOrder } = await import("~/server/orders/fulfil-order.server");
    const order = {
      id: String(payload.id),
      name: payload.name,
      email: payload.email,
      currency: "USD",
      financialStatus: "paid",
      totalPrice: "1",
      paid: true,
      cancelled: false,
      updatedAt: 0,
      refunds: [],
      cartToken: null,
      referral: null,
      renewsLicence: null,
      lines: [
        {
          id: String(payload.line_items[0]!.id),
          variantId: variant.gid,
          quantity: 2,
          title: "Vertex Rust",
          variantTitle: "30 Days",
          price: "1",
        },
      ],
    };
    const outcome = await fulfilOrder({ db, mail: env, waitUntil: () => {} }, order);
    expect(outcome.assigned).toBe(0);
    expect(await codesOf(payload.id)).toHaveLength(0);
    expect(
      await db
        .select()
        .from(backorders)
        .where(eq(backorders.orderId, String(payload.id))),
    ).toHaveLength(0);
  });

  it("revokes a cancelled order's keys and takes its waiting units out of the queue", async () => {
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric, quantity: 2 }] });
    await deliver("orders/create", payload);
    await deliver("orders/cancelled", { ...payload, cancelled_at: new Date().toISOString() });
    expect((await codesOf(payload.id)).every((c) => c.revokedAt !== null)).toBe(true);
    const queue = await db
      .select()
      .from(backorders)
      .where(eq(backorders.orderId, String(payload.id)));
    expect(queue).toHaveLength(1);
    expect(queue[0]!.cancelledAt).toBeTypeOf("number");
  });

  it("hands out nothing when the cancellation arrives before a late orders/paid delivery", async () => {
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }], financial: "pending" });
    await deliver("orders/cancelled", { ...payload, cancelled_at: new Date().toISOString() });
    const response = await deliver("orders/paid", { ...payload, financial_status: "paid" });
    expect(response.status).toBe(200);
    expect(await codesOf(payload.id)).toHaveLength(0);
    expect(await mailsTo(payload.email)).toHaveLength(0);
    expect((await db.select().from(productCodes).where(eq(productCodes.variantId, variant.gid)).get())?.isUsed).toBe(false);
  });

  it("accepts malformed payloads, then records them as rejected for the admin without retrying or handing out anything", async () => {
    const variant = await stockedVariant(1);
    const cases: unknown[] = [
      { id: 1 },
      {
        ...orderPayload({ lines: [{ variant: variant.numeric }] }),
        line_items: [{ id: 1, variant_id: variant.numeric, quantity: -2, title: "x", price: "1.00" }],
      },
      { ...orderPayload({ lines: [{ variant: variant.numeric }] }), currency: "dollars" },
      "{nope",
    ];
    for (const payload of cases) {
      const webhookId = crypto.randomUUID();
      const body = typeof payload === "string" ? payload : JSON.stringify(payload);
      const response = await exports.default.fetch(
        new Request(`${ORIGIN}/webhooks/shopify`, {
          method: "POST",
          headers: {
            "X-Shopify-Topic": "orders/create",
            "X-Shopify-Webhook-Id": webhookId,
            "X-Shopify-Hmac-Sha256": await signWebhookBody(body, env.SHOPIFY_WEBHOOK_SECRET),
          },
          body,
        }),
      );
      // The request path reads nothing but the signature: the consumer finds the payload wanting.
      expect([response.status, await response.text()]).toEqual([200, "Queued"]);
      await handled(webhookId);
      const recorded = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, webhookId)).get();
      expect(recorded).toMatchObject({ outcome: "rejected", payload: null });
      expect(recorded?.detail).toMatch(typeof payload === "string" ? /not JSON/ : /:/);
      expect(
        await db
          .select()
          .from(failedJobs)
          .where(eq(failedJobs.id, `shopify:${webhookId}`))
          .get(),
      ).toBeUndefined();
    }
    expect((await db.select().from(productCodes).where(eq(productCodes.variantId, variant.gid)).get())?.isUsed).toBe(false);
  });

  it("acknowledges topics it does not handle without doing anything", async () => {
    const webhookId = crypto.randomUUID();
    const response = await deliver("products/update", { id: 1 }, { webhookId });
    expect(response.status).toBe(200);
    expect((await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, webhookId)).get())?.outcome).toBe("ignored");
  });

  it("skips lines without a variant (custom items) but fulfils the rest", async () => {
    const variant = await stockedVariant(1);
    const payload = orderPayload({ lines: [{ variant: variant.numeric }] });
    payload.line_items.push({ ...payload.line_items[0]!, id: nextId(), variant_id: null as unknown as number });
    expect((await deliver("orders/create", payload)).status).toBe(200);
    expect(await codesOf(payload.id)).toHaveLength(1);
    expect(
      (
        await db
          .select()
          .from(productCodes)
          .where(like(productCodes.code, `KEY-${variant.numeric}-%`))
      ).filter((c) => c.isUsed),
    ).toHaveLength(1);
  });
});
