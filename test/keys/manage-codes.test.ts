import { env } from "cloudflare:workers";
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, cryptoOrders, mailOutbox, productCodes, resellerLedger, userSubscriptions } from "~/server/platform/db/schema.server";
import { call, createAccount, cryptoKeySent, db, runQueue, signIn, transactionId, unique } from "../helpers";

const FULFILMENT = "keyshop-jobs";

const VARIANT = "gid://shopify/ProductVariant/4710000000004"; // Vertex HWID Spoofer - 30 Days (demo catalogue)

async function adminCookie() {
  return signIn(await createAccount({ admin: true }), unique("ip"));
}

// The page's cards post to routes nested under it: stock (add, delete) and the crypto queue (fulfil, cancel).
const STOCK = "/dashboard/manage-codes/stock";
const CRYPTO_QUEUE = "/dashboard/manage-codes/crypto-orders";
const actionUrl = (form: Record<string, string>) => (form.intent === "fulfil" || form.intent === "cancel" ? CRYPTO_QUEUE : STOCK);
const post = (form: Record<string, string>, cookie: string) => call(actionUrl(form), { form, cookie });

describe("admin access", () => {
  const intents: Record<string, string>[] = [
    { intent: "add", variantId: VARIANT, codes: "SHOULD-NOT-EXIST-1" },
    { intent: "delete", id: "1" },
    { intent: "fulfil", orderId: crypto.randomUUID(), code: "X", source: "manual" },
    { intent: "cancel", orderId: crypto.randomUUID() },
  ];

  it("answers 403 to a member for the page and for every admin action, and changes nothing", async () => {
    const member = await createAccount();
    const cookie = await signIn(member, unique("ip"));
    expect((await call("/dashboard/manage-codes", { cookie })).status).toBe(403);
    expect((await call("/dashboard/manage-codes.data", { cookie })).status).toBe(403);
    for (const form of intents) {
      expect([actionUrl(form), (await post(form, cookie)).status]).toEqual([actionUrl(form), 403]);
      // The same action as the page's fetchers send it.
      const data = await call(`${actionUrl(form)}.data`, { form, cookie });
      expect([form.intent, data.status]).toEqual([form.intent, 403]);
    }
    expect(await db.select().from(productCodes).where(eq(productCodes.code, "SHOULD-NOT-EXIST-1")).get()).toBeUndefined();
  });

  it("sends a signed-out visitor to /auth for every admin action", async () => {
    for (const form of intents) {
      const response = await call(actionUrl(form), { form });
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toBe("/auth");
    }
    expect(await db.select().from(productCodes).where(eq(productCodes.code, "SHOULD-NOT-EXIST-1")).get()).toBeUndefined();
  });

  it("keeps each action on its own route: an intent sent to the other route is refused", async () => {
    const cookie = await adminCookie();
    for (const [url, form] of [
      [STOCK, { intent: "cancel", orderId: crypto.randomUUID() }],
      [CRYPTO_QUEUE, { intent: "add", variantId: VARIANT, codes: "SHOULD-NOT-EXIST-2" }],
      [STOCK, { intent: "nonsense" }],
      [CRYPTO_QUEUE, {}],
    ] as const) {
      const response = await call(url, { form, cookie });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("Unknown request");
    }
    expect(await db.select().from(productCodes).where(eq(productCodes.code, "SHOULD-NOT-EXIST-2")).get()).toBeUndefined();
  });
});

describe("adding codes", () => {
  it("requires a variant and some text", async () => {
    const cookie = await adminCookie();
    for (const form of [
      { intent: "add", variantId: "", codes: "A" },
      { intent: "add", variantId: VARIANT, codes: "  \n " },
    ]) {
      const response = await post(form, cookie);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("Please select a variant and enter codes");
    }
  });

  it("refuses a variant that is not in the catalogue", async () => {
    const response = await post({ intent: "add", variantId: "gid://shopify/ProductVariant/1", codes: "A" }, await adminCookie());
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("That variant is not in the catalogue");
  });

  it("refuses too many codes, or one too long, and stores none of them", async () => {
    const cookie = await adminCookie();
    const tag = unique("LIM").toUpperCase();
    const many = await post(
      { intent: "add", variantId: VARIANT, codes: Array.from({ length: 1001 }, (_, i) => `${tag}-${i}`).join("\n") },
      cookie,
    );
    expect(many.status).toBe(400);
    expect(await many.text()).toContain("Add at most 1000 codes at a time");
    const long = await post({ intent: "add", variantId: VARIANT, codes: `${tag}-OK\n${"X".repeat(201)}` }, cookie);
    expect(long.status).toBe(400);
    expect(await long.text()).toContain("Codes must be at most 200 characters");
    expect(
      await db
        .select()
        .from(productCodes)
        .where(like(productCodes.code, `${tag}-%`)),
    ).toHaveLength(0);
  });

  it("adds new codes, skipping duplicates in the input and codes already stored, and says so", async () => {
    const cookie = await adminCookie();
    const tag = unique("C").toUpperCase();
    const first = await post({ intent: "add", variantId: VARIANT, codes: `${tag}-1\n ${tag}-2 \n\n${tag}-1\n` }, cookie);
    expect(first.status).toBe(200);
    const firstText = await first.text();
    expect(firstText).toContain("Added 2 new codes for Vertex HWID Spoofer - 30 Days");
    expect(firstText).toContain("Skipped: 1 duplicate(s) in input, 0 already in database");

    const second = await post({ intent: "add", variantId: VARIANT, codes: `${tag}-2\n${tag}-3` }, cookie);
    const secondText = await second.text();
    expect(secondText).toContain("Added 1 new codes for Vertex HWID Spoofer - 30 Days");
    expect(secondText).toContain("Skipped: 0 duplicate(s) in input, 1 already in database");

    const third = await post({ intent: "add", variantId: VARIANT, codes: `${tag}-1\n${tag}-3` }, cookie);
    expect(third.status).toBe(409);
    const thirdText = await third.text();
    expect(thirdText).toContain("No New Codes");
    expect(thirdText).toContain("All 2 codes already exist in the database");

    const stored = await db.select().from(productCodes).where(eq(productCodes.variantTitle, "Vertex HWID Spoofer - 30 Days"));
    expect(
      stored
        .filter((c) => c.code.startsWith(tag))
        .map((c) => c.code)
        .sort(),
    ).toEqual([`${tag}-1`, `${tag}-2`, `${tag}-3`]);
  });

  it("stores a large submission in full", async () => {
    const tag = unique("BULK").toUpperCase();
    const codes = Array.from({ length: 300 }, (_, i) => `${tag}-${i}`).join("\n");
    const response = await post({ intent: "add", variantId: VARIANT, codes }, await adminCookie());
    expect(response.status).toBe(200);
    const stored = await db
      .select()
      .from(productCodes)
      .where(like(productCodes.code, `${tag}-%`));
    expect(stored).toHaveLength(300);
  });

  it("deletes an available code but never a sold one", async () => {
    const cookie = await adminCookie();
    const tag = unique("D").toUpperCase();
    const [available, sold] = await db
      .insert(productCodes)
      .values([
        { variantId: VARIANT, variantTitle: "Vertex HWID Spoofer - 30 Days", code: `${tag}-A`, createdAt: Date.now() },
        {
          variantId: VARIANT,
          variantTitle: "Vertex HWID Spoofer - 30 Days",
          code: `${tag}-S`,
          createdAt: Date.now(),
          isUsed: true,
          usedAt: Date.now(),
          orderId: "1",
        },
      ])
      .returning();
    const ok = await post({ intent: "delete", id: String(available!.id) }, cookie);
    expect(await ok.text()).toContain("Code deleted successfully");
    const refused = await post({ intent: "delete", id: String(sold!.id) }, cookie);
    expect(refused.status).toBe(409);
    const refusal = await refused.text();
    expect(refusal).toContain("Failed to delete code");
    expect(refusal).toContain("Only available codes can be deleted");
    expect(await db.select().from(productCodes).where(eq(productCodes.id, sold!.id)).get()).toBeDefined();
    expect(await db.select().from(productCodes).where(eq(productCodes.id, available!.id)).get()).toBeUndefined();
  });

  it("refuses a code id that is not a whole number", async () => {
    const cookie = await adminCookie();
    for (const id of ["", "abc", "1.5", "-1", "1e3", "99999999999999999999"]) {
      const response = await post({ intent: "delete", id }, cookie);
      expect([id, response.status]).toEqual([id, 400]);
      const text = await response.text();
      expect(text).toContain("Failed to delete code");
      expect(text).toContain("Unknown code");
    }
  });

  it("shows the real webhook endpoint and whether the secret is set", async () => {
    const html = await (await call("/dashboard/manage-codes", { cookie: await adminCookie() })).text();
    expect(html).toContain("https://shop.test/webhooks/shopify");
    expect(html).toContain("Set");
    expect(html).toContain("MANAGE CODES");
  });

  it("filters sold codes by period", async () => {
    const cookie = await adminCookie();
    const tag = unique("P").toUpperCase();
    const old = Date.UTC(2020, 0, 15);
    await db.insert(productCodes).values([
      {
        variantId: VARIANT,
        variantTitle: "Vertex HWID Spoofer - 30 Days",
        code: `${tag}-NOW`,
        createdAt: Date.now(),
        isUsed: true,
        usedAt: Date.now(),
        orderId: "p1",
      },
      {
        variantId: VARIANT,
        variantTitle: "Vertex HWID Spoofer - 30 Days",
        code: `${tag}-OLD`,
        createdAt: old,
        isUsed: true,
        usedAt: old,
        orderId: "p2",
      },
    ]);
    const today = await (await call(`/dashboard/manage-codes?sold=${encodeURIComponent(VARIANT)}&period=today&tz=0`, { cookie })).text();
    expect(today).toContain(`${tag}-NOW`);
    expect(today).not.toContain(`${tag}-OLD`);
    const all = await (await call(`/dashboard/manage-codes?sold=${encodeURIComponent(VARIANT)}&period=all`, { cookie })).text();
    expect(all).toContain(`${tag}-OLD`);
  });
});

describe("fulfilling crypto orders", () => {
  async function submittedOrder() {
    const member = await createAccount();
    const [order] = await db
      .insert(cryptoOrders)
      .values({
        id: crypto.randomUUID(),
        orderNumber: `CRYPTO-${unique("T").toUpperCase().slice(0, 12)}`,
        userId: member.id,
        status: "submitted",
        productTitle: "Vertex HWID Spoofer",
        variantTitle: "30 Days",
        variantId: VARIANT,
        customerEmail: member.email,
        amountCents: 2499,
        currency: "USD",
        cryptoType: "BTC",
        walletAddress: "bc1qdemo",
        transactionId: transactionId(),
        createdAt: Date.now(),
        updatedAt: Date.now(),
      })
      .returning();
    return order!;
  }

  it("requires a product code when fulfilling by hand", async () => {
    const order = await submittedOrder();
    const cookie = await adminCookie();
    const forms: Record<string, string>[] = [
      { intent: "fulfil", orderId: order.id, code: "   ", source: "manual" },
      // Without a source the code is typed in.
      { intent: "fulfil", orderId: order.id },
    ];
    for (const form of forms) {
      const response = await post(form, cookie);
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain("Failed to fulfill order");
      expect(text).toContain("Please enter a product code");
    }
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("submitted");
  });

  it("refuses an unknown order, a malformed order id and an unknown source", async () => {
    const cookie = await adminCookie();
    const unknown = await post({ intent: "fulfil", orderId: crypto.randomUUID(), code: "X", source: "manual" }, cookie);
    expect(unknown.status).toBe(404);
    const unknownText = await unknown.text();
    expect(unknownText).toContain("Failed to fulfill order");
    expect(unknownText).toContain("Unknown order");
    for (const orderId of ["", "1", "not-a-uuid"]) {
      const response = await post({ intent: "fulfil", orderId, code: "X", source: "manual" }, cookie);
      expect([orderId, response.status]).toEqual([orderId, 400]);
      expect(await response.text()).toContain("Unknown order");
    }
    const order = await submittedOrder();
    const source = await post({ intent: "fulfil", orderId: order.id, code: "X", source: "elsewhere" }, cookie);
    expect(source.status).toBe(400);
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("submitted");
  });

  it("says so when there is no stock to fulfil from", async () => {
    const order = await submittedOrder();
    await db.update(cryptoOrders).set({ variantId: "gid://shopify/ProductVariant/9999999" }).where(eq(cryptoOrders.id, order.id));
    const response = await post({ intent: "fulfil", orderId: order.id, source: "stock" }, await adminCookie());
    expect(response.status).toBe(409);
    expect(await response.text()).toContain(`No codes in stock for ${order.productTitle} - ${order.variantTitle}`);
  });

  it("fulfils with a typed code, marks it sold, and records who did it", async () => {
    const order = await submittedOrder();
    const code = `HAND-${unique("h").toUpperCase()}`;
    const response = await post({ intent: "fulfil", orderId: order.id, code: `  ${code} `, source: "manual" }, await adminCookie());
    expect(await response.text()).toContain(
      `Order ${order.orderNumber} fulfilled successfully: the key is on its way to ${order.customerEmail}`,
    );
    await cryptoKeySent(order.id);
    expect(await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get()).toMatchObject({
      status: "complete",
      productCode: code,
    });
    expect(
      await db
        .select()
        .from(productCodes)
        .where(and(eq(productCodes.code, code), eq(productCodes.isUsed, true)))
        .get(),
    ).toMatchObject({
      orderId: order.orderNumber,
      customerEmail: order.customerEmail,
    });
    expect(
      await db
        .select()
        .from(auditLog)
        .where(eq(auditLog.subject, `crypto:${order.orderNumber}`))
        .get(),
    ).toMatchObject({ action: "crypto-order.fulfil" });
    // A second fulfilment is refused.
    const again = await post({ intent: "fulfil", orderId: order.id, code: "OTHER", source: "manual" }, await adminCookie());
    expect(again.status).toBe(409);
  });

  it("refuses a typed code that was already sold to someone else", async () => {
    const tag = unique("SOLD").toUpperCase();
    await db.insert(productCodes).values({
      variantId: VARIANT,
      variantTitle: "x",
      code: tag,
      createdAt: Date.now(),
      isUsed: true,
      usedAt: Date.now(),
      orderId: "other",
    });
    const order = await submittedOrder();
    const response = await post({ intent: "fulfil", orderId: order.id, code: tag, source: "manual" }, await adminCookie());
    expect(response.status).toBe(409);
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("submitted");
  });

  /** What the admin's fulfil does before queueing the job: the order counts as paid from now. */
  const approve = (order: { id: string }) => db.update(cryptoOrders).set({ paidAt: Date.now() }).where(eq(cryptoOrders.id, order.id));

  /** Cancels the order the moment its key is claimed, as an admin clicking Cancel at that instant would. */
  async function cancelOnClaim(orderNumber: string, when: "INSERT" | "UPDATE") {
    const name = `cancel_${orderNumber.replace(/\W/g, "_")}`;
    await env.DB.exec(
      `CREATE TRIGGER ${name} AFTER ${when} ON product_codes WHEN NEW.order_id = '${orderNumber}' BEGIN UPDATE crypto_orders SET status = 'cancelled' WHERE order_number = '${orderNumber}'; END;`,
    );
    return () => env.DB.exec(`DROP TRIGGER ${name};`);
  }

  it("hands a stock key back when the order is cancelled while it is being fulfilled", async () => {
    const order = await submittedOrder();
    const code = `RACE-${unique("r").toUpperCase()}`;
    await db.delete(productCodes).where(and(eq(productCodes.variantId, VARIANT), eq(productCodes.isUsed, false)));
    await db
      .insert(productCodes)
      .values({ variantId: VARIANT, variantTitle: "Vertex HWID Spoofer - 30 Days", code, createdAt: Date.now() - 60_000 });
    await approve(order);
    const drop = await cancelOnClaim(order.orderNumber, "UPDATE");
    // What the admin's "Use next code in stock" queues, run by the queue's consumer.
    const result = await runQueue(FULFILMENT, [{ kind: "crypto-order", orderNumber: order.orderNumber, code: null }]);
    await drop();
    expect(result).toMatchObject({ outcome: "ok", explicitAcks: [expect.any(String)], retryMessages: [] });
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("cancelled");
    expect(await db.select().from(productCodes).where(eq(productCodes.code, code)).get()).toMatchObject({
      isUsed: false,
      orderId: null,
      customerEmail: null,
      unitIndex: null,
    });
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, order.userId))).toHaveLength(0);
    expect(await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, order.customerEmail))).toHaveLength(0);
  });

  it("forgets a typed-in key when the order is cancelled while it is being fulfilled", async () => {
    const order = await submittedOrder();
    const code = `TYPED-${unique("t").toUpperCase()}`;
    await approve(order);
    const drop = await cancelOnClaim(order.orderNumber, "INSERT");
    const result = await runQueue(FULFILMENT, [{ kind: "crypto-order", orderNumber: order.orderNumber, code }]);
    await drop();
    expect(result).toMatchObject({ outcome: "ok", explicitAcks: [expect.any(String)], retryMessages: [] });
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("cancelled");
    expect(await db.select().from(productCodes).where(eq(productCodes.code, code))).toHaveLength(0);
    expect(await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, order.customerEmail))).toHaveLength(0);
  });

  it("can cancel an order", async () => {
    const order = await submittedOrder();
    const cookie = await adminCookie();
    const response = await post({ intent: "cancel", orderId: order.id, seen: String(order.updatedAt) }, cookie);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("Order cancelled");
    expect(text).toContain(`Order ${order.orderNumber} was cancelled`);
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("cancelled");
    // Once cancelled, it can be neither cancelled again nor fulfilled.
    const again = await post({ intent: "cancel", orderId: order.id, seen: String(order.updatedAt) }, cookie);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain(`Order ${order.orderNumber} was already cancelled by`);
    expect((await post({ intent: "fulfil", orderId: order.id, code: "LATE", source: "manual" }, cookie)).status).toBe(409);
  });

  it("never cancels a top-up whose credit reached the balance, even before the order reads complete", async () => {
    const order = await submittedOrder();
    const paidAt = Date.now();
    await db.update(cryptoOrders).set({ purpose: "top-up", status: "processing", paidAt }).where(eq(cryptoOrders.id, order.id));
    // The settlement's first step: the credit is in the ledger; the order is not marked complete yet.
    await db
      .insert(resellerLedger)
      .values({ userId: order.userId!, kind: "top-up", amountCents: order.amountCents, reference: order.orderNumber, createdAt: paidAt });
    const response = await post({ intent: "cancel", orderId: order.id, seen: String(order.updatedAt) }, await adminCookie());
    expect(response.status).toBe(409);
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("processing");
  });

  describe("decided by two admins", () => {
    const decisions = (orderNumber: string) =>
      db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.subject, `crypto:${orderNumber}`), like(auditLog.action, "crypto-order.%")))
        .all();
    const anAdmin = async () => {
      const account = await createAccount({ admin: true });
      return { account, cookie: await signIn(account, unique("ip")) };
    };

    it("refuses a cancel sent from a page that showed the order before another admin fulfilled it, naming them; the key still goes out", async () => {
      const order = await submittedOrder();
      const [first, second] = [await anAdmin(), await anAdmin()];
      const code = `ONCE-${unique("o").toUpperCase()}`;
      expect((await post({ intent: "fulfil", orderId: order.id, code, source: "manual" }, first.cookie)).status).toBe(200);
      const late = await post({ intent: "cancel", orderId: order.id, seen: String(order.updatedAt) }, second.cookie);
      expect(late.status).toBe(409);
      expect(await late.text()).toContain(`Order ${order.orderNumber} was already fulfilled by ${first.account.email}`);
      await cryptoKeySent(order.id);
      expect(await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get()).toMatchObject({
        status: "complete",
        productCode: code,
      });
      expect((await decisions(order.orderNumber)).map((row) => row.action)).toEqual(["crypto-order.fulfil"]);
      expect(await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, order.customerEmail))).toHaveLength(1);
    });

    it("refuses a fulfilment after another admin cancelled, naming them, and hands out nothing", async () => {
      const order = await submittedOrder();
      const [first, second] = [await anAdmin(), await anAdmin()];
      expect((await post({ intent: "cancel", orderId: order.id, seen: String(order.updatedAt) }, first.cookie)).status).toBe(200);
      const late = await post({ intent: "fulfil", orderId: order.id, source: "stock" }, second.cookie);
      expect(late.status).toBe(409);
      expect(await late.text()).toContain(`Order ${order.orderNumber} was already cancelled by ${first.account.email}`);
      expect((await decisions(order.orderNumber)).map((row) => row.action)).toEqual(["crypto-order.cancel"]);
      expect(await db.select().from(productCodes).where(eq(productCodes.orderId, order.orderNumber))).toHaveLength(0);
    });

    it("at the same moment: exactly one of a fulfilment and a cancel takes effect", async () => {
      const order = await submittedOrder();
      const [first, second] = [await anAdmin(), await anAdmin()];
      const code = `RACE2-${unique("o").toUpperCase()}`;
      const [fulfilled, cancelled] = await Promise.all([
        post({ intent: "fulfil", orderId: order.id, code, source: "manual" }, first.cookie),
        post({ intent: "cancel", orderId: order.id, seen: String(order.updatedAt) }, second.cookie),
      ]);
      expect([fulfilled.status, cancelled.status].sort()).toEqual([200, 409]);
      expect(await decisions(order.orderNumber)).toHaveLength(1);
      if (fulfilled.status === 200) {
        await cryptoKeySent(order.id);
        expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("complete");
      } else {
        expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())?.status).toBe("cancelled");
      }
    });
  });

  it("refuses to cancel an order that does not exist or whose id is malformed", async () => {
    const cookie = await adminCookie();
    expect((await post({ intent: "cancel", orderId: crypto.randomUUID(), seen: "1" }, cookie)).status).toBe(409);
    const malformed = await post({ intent: "cancel", orderId: "1e3", seen: "1" }, cookie);
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toContain("Unknown order");
  });
});
