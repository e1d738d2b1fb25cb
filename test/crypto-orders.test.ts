import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { expireUnpaidCryptoOrders, MAX_OPEN_ORDERS_PER_MEMBER, PENDING_TTL_MS } from "~/server/payments/crypto-orders.server";
import { auditLog, cryptoOrders, mailOutbox, productCodes, userSubscriptions } from "~/server/platform/db/schema.server";
import { call, createAccount, cryptoKeySent, db, signIn, transactionId, unique } from "./helpers";

const MONTH = "gid://shopify/ProductVariant/4710000000002"; // Vertex Rust - 30 Days, $89.99
const WEEK = "gid://shopify/ProductVariant/4710000000001";

interface OrderBody {
  ok: boolean;
  message?: string;
  order?: { orderNumber: string; status: string; coin: string; walletAddress: string; amountCents: number };
}

async function member() {
  const account = await createAccount();
  return { account, cookie: await signIn(account, unique("ip")) };
}

const api = async (form: Record<string, string>, cookie?: string) => {
  const response = await call("/api/crypto-orders", { form, cookie });
  return { status: response.status, body: (await response.json()) as OrderBody };
};

const track = (orderNumber: string, cookie: string) => call(`/dashboard/crypto-tracker?order=${encodeURIComponent(orderNumber)}`, { cookie });

describe("crypto orders", () => {
  it("go through their whole life: open, change coin, submit payment, admin fulfils, key on the tracker and by e-mail", async () => {
    const { account, cookie } = await member();
    const opened = await api({ intent: "open", variantId: MONTH }, cookie);
    expect(opened.status).toBe(200);
    const order = opened.body.order!;
    expect(order.orderNumber).toMatch(/^CRYPTO-[A-Z0-9]{12}$/);
    expect(order).toMatchObject({ status: "pending", coin: "BTC", walletAddress: env.CRYPTO_BTC_ADDRESS, amountCents: 8999 });

    const ltc = await api({ intent: "coin", orderNumber: order.orderNumber, coin: "LTC" }, cookie);
    expect(ltc.body.order).toMatchObject({ coin: "LTC", walletAddress: env.CRYPTO_LTC_ADDRESS });

    const pendingPage = await (await track(order.orderNumber, cookie)).text();
    expect(pendingPage).toContain("Pending Payment");
    expect(pendingPage).toContain("Please complete your payment and we will verify it shortly.");

    const badTx = await call("/dashboard/crypto-tracker", { form: { orderNumber: order.orderNumber, transactionId: "not-a-tx" }, cookie });
    expect(badTx.status).toBe(400);
    const tx = transactionId();
    const submitted = await call("/dashboard/crypto-tracker", { form: { orderNumber: order.orderNumber, transactionId: tx }, cookie });
    expect(submitted.status).toBe(200);
    const row = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, order.orderNumber)).get();
    expect(row).toMatchObject({ status: "submitted", transactionId: tx });
    // The coin cannot change once payment is submitted.
    expect((await api({ intent: "coin", orderNumber: order.orderNumber, coin: "BTC" }, cookie)).status).toBe(409);

    const stockCode = `STOCK-${unique("k").toUpperCase()}`;
    await db.insert(productCodes).values({ variantId: MONTH, variantTitle: "Vertex Rust - 30 Days", code: stockCode, createdAt: 0 });
    const admin = await signIn(await createAccount({ admin: true }), unique("ip"));
    const fulfilled = await call("/dashboard/manage-codes/crypto-orders", { form: { intent: "fulfil", orderId: row!.id, source: "stock" }, cookie: admin });
    expect(await fulfilled.text()).toContain(`Order ${order.orderNumber} fulfilled successfully`);
    await cryptoKeySent(row!.id);

    const done = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, row!.id)).get();
    expect(done?.status).toBe("complete");
    const key = await db.select().from(productCodes).where(and(eq(productCodes.orderId, order.orderNumber), eq(productCodes.isUsed, true))).get();
    expect(key).toBeDefined();
    expect(done?.productCode).toBe(key!.code);
    const page = await (await track(order.orderNumber, cookie)).text();
    expect(page).toContain("Complete");
    expect(page).toContain(key!.code);
    const mail = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, account.email)).all();
    expect(mail.some((m) => m.textBody.includes(key!.code))).toBe(true);
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get()).toMatchObject({ status: "active", variantTitle: "30 Days" });
  });

  it("tells the buyer of a cancelled order that no key will come, and of a submitted one that it is being verified", async () => {
    const { cookie } = await member();
    const order = (await api({ intent: "open", variantId: MONTH }, cookie)).body.order!;
    await call("/dashboard/crypto-tracker", { form: { orderNumber: order.orderNumber, transactionId: transactionId() }, cookie });
    const submitted = await (await track(order.orderNumber, cookie)).text();
    expect(submitted).toContain("Our support team is verifying it now.");
    expect(submitted).toContain("as soon as our support team has verified your payment");

    const row = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, order.orderNumber)).get();
    const admin = await signIn(await createAccount({ admin: true }), unique("ip"));
    expect((await call("/dashboard/manage-codes/crypto-orders", { form: { intent: "cancel", orderId: row!.id }, cookie: admin })).status).toBe(200);
    const cancelled = await (await track(order.orderNumber, cookie)).text();
    expect(cancelled).toContain("Cancelled");
    expect(cancelled).toContain("This order was cancelled and no key will be delivered.");
    expect(cancelled).not.toContain("Your key appears here");
  });

  it("shows an order only to the member who created it: any other number is 'Order Not Found'", async () => {
    const owner = await member();
    const other = await member();
    const { body } = await api({ intent: "open", variantId: WEEK }, owner.cookie);
    const theirs = body.order!.orderNumber;
    for (const number of [theirs, "CRYPTO-DOESNOTEXIST"]) {
      const response = await track(number, other.cookie);
      const html = await response.text();
      expect(html).toContain("No order found with this order number");
      expect(html).not.toContain("Pending Payment");
    }
    // Nor can another member submit a payment for it or switch its coin.
    const foreignSubmit = await call("/dashboard/crypto-tracker", { form: { orderNumber: theirs, transactionId: transactionId() }, cookie: other.cookie });
    expect(foreignSubmit.status).toBe(404);
    expect((await api({ intent: "coin", orderNumber: theirs, coin: "LTC" }, other.cookie)).status).toBe(404);
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, theirs)).get())?.status).toBe("pending");
    // An admin can look any order up.
    const admin = await signIn(await createAccount({ admin: true }), unique("ip"));
    expect(await (await track(theirs, admin)).text()).toContain(theirs);
  });

  it("refuses a transaction ID already submitted for another open order, whoever submitted it", async () => {
    const first = await member();
    const second = await member();
    const mine = (await api({ intent: "open", variantId: MONTH }, first.cookie)).body.order!;
    const theirs = (await api({ intent: "open", variantId: MONTH }, second.cookie)).body.order!;
    const tx = transactionId();
    const submit = (orderNumber: string, cookie: string, id: string) => call("/dashboard/crypto-tracker", { form: { orderNumber, transactionId: id }, cookie });
    expect((await submit(mine.orderNumber, first.cookie, tx)).status).toBe(200);
    // The same payment, even in capitals, cannot pay for a second order.
    const reused = await submit(theirs.orderNumber, second.cookie, tx.toUpperCase());
    expect(reused.status).toBe(409);
    expect(await reused.text()).toContain("This transaction ID was already submitted for another order");
    // The clash is on record for an admin asked to sort it out.
    expect(await db.select().from(auditLog).where(eq(auditLog.subject, theirs.orderNumber)).get()).toMatchObject({ action: "crypto-order.transaction-clash", actorUserId: second.account.id });
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, theirs.orderNumber)).get())).toMatchObject({ status: "pending", transactionId: null });
    // Once the order that used it is cancelled, the payment may be claimed for another.
    await db.update(cryptoOrders).set({ status: "cancelled" }).where(eq(cryptoOrders.orderNumber, mine.orderNumber));
    expect((await submit(theirs.orderNumber, second.cookie, tx)).status).toBe(200);
  });

  it("asks for an order number", async () => {
    const { cookie } = await member();
    expect(await (await call("/dashboard/crypto-tracker?order=", { cookie })).text()).toContain("Please enter your order number");
    expect(await (await call("/dashboard/crypto-tracker?order=%20%20", { cookie })).text()).toContain("Please enter your order number");
  });

  it("refuses a payment without an order number or a transaction ID, and changes nothing", async () => {
    const { cookie } = await member();
    const order = (await api({ intent: "open", variantId: MONTH }, cookie)).body.order!;
    const submit = (form: Record<string, string>) => call("/dashboard/crypto-tracker", { form, cookie });
    for (const [form, message] of [
      [{ orderNumber: order.orderNumber, transactionId: "  " }, "Please enter your transaction ID"],
      [{ orderNumber: order.orderNumber }, "Please enter your transaction ID"],
      [{ orderNumber: "", transactionId: transactionId() }, "Please enter your order number"],
    ] as const) {
      const response = await submit(form);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(message);
    }
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, order.orderNumber)).get())).toMatchObject({ status: "pending", transactionId: null });
    // An order number is read as the tracker shows it: capitals, no surrounding spaces.
    const tx = transactionId();
    expect((await submit({ orderNumber: ` ${order.orderNumber.toLowerCase()} `, transactionId: tx })).status).toBe(200);
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, order.orderNumber)).get())?.transactionId).toBe(tx);
  });

  it("requires a signed-in member, a real plan and a known coin", async () => {
    expect((await api({ intent: "open", variantId: MONTH })).status).toBe(401);
    const { cookie } = await member();
    expect((await api({ intent: "open", variantId: "gid://shopify/ProductVariant/123" }, cookie)).status).toBe(404);
    expect((await api({ intent: "open", variantId: "nonsense" }, cookie)).status).toBe(400);
    expect((await api({ intent: "open", variantId: MONTH, coin: "DOGE" }, cookie)).status).toBe(400);
    const unknown = await api({ intent: "refund", variantId: MONTH }, cookie);
    expect(unknown).toEqual({ status: 400, body: { ok: false, message: "Unknown request" } });
    const order = (await api({ variantId: MONTH }, cookie)).body.order!;
    expect((await api({ intent: "coin", orderNumber: order.orderNumber, coin: "DOGE" }, cookie)).body).toEqual({ ok: false, message: "Choose BTC or LTC" });
    expect((await api({ intent: "coin", orderNumber: "", coin: "LTC" }, cookie)).status).toBe(400);
  });

  it("reuses an open order for the same plan and caps how many a member can open", async () => {
    const { account, cookie } = await member();
    const first = await api({ intent: "open", variantId: MONTH }, cookie);
    const again = await api({ intent: "open", variantId: MONTH }, cookie);
    expect(again.body.order!.orderNumber).toBe(first.body.order!.orderNumber);
    // Other plans each need their own order; past the cap the server refuses.
    for (let i = 1; i < MAX_OPEN_ORDERS_PER_MEMBER; i++) {
      await db.insert(cryptoOrders).values({
        id: crypto.randomUUID(), orderNumber: `CRYPTO-CAP${unique("x").toUpperCase().slice(-8)}`, userId: account.id, status: "pending",
        productTitle: "p", variantTitle: "v", variantId: `gid://shopify/ProductVariant/${i}`, customerEmail: account.email,
        amountCents: 1, currency: "USD", cryptoType: "BTC", walletAddress: "w", createdAt: Date.now(), updatedAt: Date.now(),
      });
    }
    expect((await api({ intent: "open", variantId: WEEK }, cookie)).status).toBe(429);
  });

  it("cancels pending orders nobody paid within 24 hours, and leaves submitted ones alone", async () => {
    const { account } = await member();
    const old = Date.now() - PENDING_TTL_MS - 1000;
    const base = { userId: account.id, productTitle: "p", variantTitle: "v", variantId: MONTH, customerEmail: account.email, amountCents: 1, currency: "USD", cryptoType: "BTC" as const, walletAddress: "w", createdAt: old, updatedAt: old };
    const [stale, paid, fresh] = await db
      .insert(cryptoOrders)
      .values([
        { ...base, id: crypto.randomUUID(), orderNumber: `CRYPTO-OLD${unique("a").toUpperCase().slice(-8)}`, status: "pending" },
        { ...base, id: crypto.randomUUID(), orderNumber: `CRYPTO-PAID${unique("b").toUpperCase().slice(-8)}`, status: "submitted", transactionId: transactionId() },
        { ...base, id: crypto.randomUUID(), orderNumber: `CRYPTO-NEW${unique("c").toUpperCase().slice(-8)}`, status: "pending", createdAt: Date.now() },
      ])
      .returning();
    await expireUnpaidCryptoOrders(db);
    const status = async (id: string) => (await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, id)).get())?.status;
    expect(await status(stale!.id)).toBe("cancelled");
    expect(await status(paid!.id)).toBe("submitted");
    expect(await status(fresh!.id)).toBe("pending");
  });
});
