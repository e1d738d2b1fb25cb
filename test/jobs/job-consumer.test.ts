// The fulfilment queue: the webhook's answer waits for nothing but the queue, the consumer acks
// and retries each message on its own, a batch run again after a crash repeats nothing, and a job
// the queue gives up on lands on the admin's card, from where it can be sent again.
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { STUCK_DELIVERY_MS } from "~/server/orders/shopify-webhook.server";
import { addCodes } from "~/server/keys/stock.server";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import {
  auditLog,
  cryptoOrders,
  failedJobs,
  licences,
  mailOutbox,
  productCodes,
  webhookDeliveries,
} from "~/server/platform/db/schema.server";
import { signWebhookBody } from "~/server/platform/shopify-hmac.server";
import worker from "../../workers/app";
import { call, createAccount, db, handled, nextId, ORIGIN, paidOrderPayload, runQueue, signIn, transactionId, unique } from "../helpers";

const FULFILMENT = "keyshop-jobs";
const DEAD_LETTERS = "keyshop-jobs-failed";

/** A paid one-unit order for a fresh variant with one code in stock. */
async function paidOrder() {
  const variant = nextId();
  const code = `QUEUE-${variant}`;
  await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: "Vertex Rust - 30 Days" }, code);
  const payload = paidOrderPayload({ variant, variantTitle: "30 Days", price: "89.99" }, { namePrefix: "#Q" });
  return { code, payload };
}

/**
 * A member's crypto order for a fresh plan, from before on-chain checks (its transaction id typed
 * in by the buyer); `approved`: an admin fulfilled it, so its job is due (as after "Fulfill").
 */
async function submittedCryptoOrder({ approved = true } = {}) {
  const member = await createAccount();
  const variant = `gid://shopify/ProductVariant/${nextId()}`;
  const [order] = await db
    .insert(cryptoOrders)
    .values({
      id: crypto.randomUUID(),
      orderNumber: `CRYPTO-${unique("Q").toUpperCase().slice(0, 10)}`,
      userId: member.id,
      status: "submitted",
      productTitle: "Vertex Rust",
      variantTitle: "30 Days",
      variantId: variant,
      customerEmail: member.email,
      amountCents: 8999,
      currency: "USD",
      cryptoType: "BTC",
      walletAddress: "bc1qdemo",
      transactionId: transactionId(),
      paidAt: approved ? Date.now() : null,
      createdAt: Date.now(),
      updatedAt: Date.now(),
    })
    .returning();
  return { member, variant, order: order!, orderNumber: order!.orderNumber };
}

/** A delivery recorded as the webhook records one, but not queued: the test hands it to the consumer. */
async function recordedDelivery(payload: unknown) {
  const id = crypto.randomUUID();
  await db
    .insert(webhookDeliveries)
    .values({ id, topic: "orders/paid", outcome: "queued", payload: JSON.stringify(payload), receivedAt: Date.now() });
  return { id, job: { kind: "shopify-delivery", deliveryId: id } };
}

const delivery = (id: string) => db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();
const failure = (id: string) => db.select().from(failedJobs).where(eq(failedJobs.id, id)).get();
const keysOf = (orderId: number) =>
  db
    .select()
    .from(productCodes)
    .where(eq(productCodes.orderId, String(orderId)));
const keyMails = (orderId: number) =>
  db
    .select()
    .from(mailOutbox)
    .where(eq(mailOutbox.dedupeKey, `order-keys:${orderId}`));

/** Makes the licence for `key` fail to be written, as a database error halfway through a job would. */
async function failLicenceFor(key: string) {
  const name = `fail_${key.replace(/\W/g, "_")}`;
  await env.DB.exec(
    `CREATE TRIGGER ${name} BEFORE INSERT ON licences WHEN NEW.key = '${key}' BEGIN SELECT RAISE(ABORT, 'licence store unavailable'); END;`,
  );
  return () => env.DB.exec(`DROP TRIGGER ${name};`);
}

describe("fulfilment queue: the webhook's answer", () => {
  it("records the delivery with its body and queues it, then the consumer hands out the key and clears the body", async () => {
    const { code, payload } = await paidOrder();
    const webhookId = crypto.randomUUID();
    const body = JSON.stringify(payload);
    const response = await exports.default.fetch(
      new Request(`${ORIGIN}/webhooks/shopify`, {
        method: "POST",
        headers: {
          "X-Shopify-Topic": "orders/paid",
          "X-Shopify-Webhook-Id": webhookId,
          "X-Shopify-Hmac-Sha256": await signWebhookBody(body, env.SHOPIFY_WEBHOOK_SECRET),
        },
        body,
      }),
    );
    expect([response.status, await response.text()]).toEqual([200, "Queued"]);
    await handled(webhookId);
    expect(await delivery(webhookId)).toMatchObject({ outcome: "processed", payload: null, orderId: String(payload.id) });
    expect((await keysOf(payload.id)).map((k) => k.code)).toEqual([code]);
    expect(await keyMails(payload.id)).toHaveLength(1);
  });

  it("answers 503 when the queue refuses the job, keeps the delivery, and queues it when Shopify retries", async () => {
    const { code, payload } = await paidOrder();
    const webhookId = crypto.randomUUID();
    const body = JSON.stringify(payload);
    // The Worker's fetch handler with the bindings given: a queue that refuses, or the real one.
    const send = async (bindings: Env) =>
      worker.fetch(
        new Request(`${ORIGIN}/webhooks/shopify`, {
          method: "POST",
          headers: {
            "X-Shopify-Topic": "orders/paid",
            "X-Shopify-Webhook-Id": webhookId,
            "X-Shopify-Hmac-Sha256": await signWebhookBody(body, env.SHOPIFY_WEBHOOK_SECRET),
          },
          body,
        }) as Request<unknown, IncomingRequestCfProperties>,
        bindings,
        createExecutionContext(),
      );
    const down = { ...env, JOB_QUEUE: { send: () => Promise.reject(new Error("queue unavailable")) } } as unknown as Env;
    const refused = await send(down);
    expect(refused.status).toBe(503);
    expect(await delivery(webhookId)).toMatchObject({ outcome: "queued", payload: body });
    expect(await keysOf(payload.id)).toHaveLength(0);

    const retried = await send(env);
    expect([retried.status, await retried.text()]).toEqual([200, "Queued"]);
    await handled(webhookId);
    expect((await keysOf(payload.id)).map((k) => k.code)).toEqual([code]);
    // Once handled, a further retry is recognised and not queued again.
    const late = await send(down);
    expect([late.status, await late.text()]).toEqual([200, "Already processed"]);
  });
});

describe("fulfilment queue: nothing stuck on the way", () => {
  it("queues again, from the cron trigger, a delivery whose message was lost ten minutes ago, and leaves recent ones to the queue", async () => {
    const stuck = await paidOrder();
    const recent = await paidOrder();
    const lost = await recordedDelivery(stuck.payload);
    const fresh = await recordedDelivery(recent.payload);
    const now = Date.now();
    await db
      .update(webhookDeliveries)
      .set({ receivedAt: now - STUCK_DELIVERY_MS - 1000 })
      .where(eq(webhookDeliveries.id, lost.id));
    await runScheduledJobs(env, now);
    await handled(lost.id);
    expect((await keysOf(stuck.payload.id)).map((k) => k.code)).toEqual([stuck.code]);
    // Its message is with the queue, as far as the cron job can tell: it is left alone.
    expect(await delivery(fresh.id)).toMatchObject({ outcome: "queued" });
    expect(await keysOf(recent.payload.id)).toHaveLength(0);
  });

  it("tells the admin to try again when the queue is down, and changes nothing", async () => {
    const admin = await createAccount({ admin: true });
    const cookie = await signIn(admin, unique("ip"));
    const { order } = await submittedCryptoOrder({ approved: false });
    const down = { ...env, JOB_QUEUE: { send: () => Promise.reject(new Error("queue unavailable")) } } as unknown as Env;
    const post = (path: string, form: Record<string, string>) =>
      worker.fetch(
        new Request(`${ORIGIN}${path}`, {
          method: "POST",
          headers: { Origin: ORIGIN, Cookie: cookie },
          body: new URLSearchParams(form),
        }) as Request<unknown, IncomingRequestCfProperties>,
        down,
        createExecutionContext(),
      );
    const fulfil = await post("/dashboard/manage-codes/crypto-orders", {
      intent: "fulfil",
      orderId: order.id,
      code: `DOWN-${order.orderNumber}`,
      source: "manual",
    });
    expect(fulfil.status).toBe(503);
    expect(await fulfil.text()).toContain("The fulfilment queue is not available right now");
    expect(await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get()).toMatchObject({
      status: "submitted",
      paidAt: null,
    });
    expect(await db.select().from(auditLog).where(eq(auditLog.subject, order.orderNumber)).get()).toBeUndefined();

    const deliveryId = crypto.randomUUID();
    await runQueue(DEAD_LETTERS, [{ kind: "shopify-delivery", deliveryId }]);
    const retry = await post("/dashboard/manage-codes/jobs", { intent: "retry", id: `shopify:${deliveryId}` });
    expect(retry.status).toBe(503);
    expect(await retry.text()).toContain("the job stays on the list");
    expect(await failure(`shopify:${deliveryId}`)).toMatchObject({ deadAt: expect.any(Number) });
  });
});

describe("fulfilment queue: the buyer waiting for the key", () => {
  it("tells a member on Subscriptions that their order is being fulfilled until its key is there, and nobody else", async () => {
    const member = await createAccount();
    const cookie = await signIn(member, unique("ip"));
    const stranger = await signIn(await createAccount(), unique("ip"));
    const { code, payload } = await paidOrder();
    const pending = await recordedDelivery({ ...payload, email: member.email.toUpperCase() });
    const page = async (who: string) => (await call("/dashboard/subscriptions", { cookie: who })).text();

    const waiting = await page(cookie);
    expect(waiting).toContain("Your order is being fulfilled");
    expect(waiting).not.toContain("No Active Plan");
    expect(await page(stranger)).not.toContain("Your order is being fulfilled");

    expect((await runQueue(FULFILMENT, [pending.job])).explicitAcks).toHaveLength(1);
    const done = await page(cookie);
    expect(done).not.toContain("Your order is being fulfilled");
    expect(done).toContain(code);
  });

  it("finds the buyer wherever the order names them, while the delivery is queued or erroring, among other pending ones", async () => {
    const page = async (cookie: string) => (await call("/dashboard/subscriptions", { cookie })).text();
    const waiting = "Your order is being fulfilled";
    const { payload } = await paidOrder();
    const { email: _, ...unaddressed } = payload;
    // Others' orders wait too, and a body that is not JSON names nobody.
    await recordedDelivery({ ...payload, email: `Other.${unique("buyer")}@example.com` });
    await db
      .insert(webhookDeliveries)
      .values({ id: crypto.randomUUID(), topic: "orders/paid", outcome: "queued", payload: "not json", receivedAt: Date.now() });

    const byContact = await createAccount();
    const contact = await recordedDelivery({ ...unaddressed, contact_email: byContact.email.toUpperCase() });
    const byCustomer = await createAccount();
    await recordedDelivery({ ...unaddressed, customer: { email: byCustomer.email } });
    const bystander = await signIn(await createAccount(), unique("ip"));

    const contactCookie = await signIn(byContact, unique("ip"));
    expect(await page(contactCookie)).toContain(waiting);
    expect(await page(await signIn(byCustomer, unique("ip")))).toContain(waiting);
    expect(await page(bystander)).not.toContain(waiting);

    // Erroring while the queue retries: still on its way. Handled, its body cleared: no longer.
    await db.update(webhookDeliveries).set({ outcome: "error" }).where(eq(webhookDeliveries.id, contact.id));
    expect(await page(contactCookie)).toContain(waiting);
    await db.update(webhookDeliveries).set({ outcome: "processed", payload: null }).where(eq(webhookDeliveries.id, contact.id));
    expect(await page(contactCookie)).not.toContain(waiting);
  });
});

describe("fulfilment queue: the delivery's body", () => {
  it("keeps the first body of a pending delivery: another signed body sent under its id replaces nothing", async () => {
    const real = await paidOrder();
    const other = await paidOrder();
    const pending = await recordedDelivery(real.payload);
    const body = JSON.stringify(other.payload);
    const response = await exports.default.fetch(
      new Request(`${ORIGIN}/webhooks/shopify`, {
        method: "POST",
        headers: {
          "X-Shopify-Topic": "orders/paid",
          "X-Shopify-Webhook-Id": pending.id,
          "X-Shopify-Hmac-Sha256": await signWebhookBody(body, env.SHOPIFY_WEBHOOK_SECRET),
        },
        body,
      }),
    );
    expect(response.status).toBe(200);
    await handled(pending.id);
    expect(await delivery(pending.id)).toMatchObject({ outcome: "processed", orderId: String(real.payload.id) });
    expect((await keysOf(real.payload.id)).map((k) => k.code)).toEqual([real.code]);
    expect(await keysOf(other.payload.id)).toHaveLength(0);
  });
});

describe("fulfilment queue: the consumer", () => {
  it("acks each message on its own: one that fails is retried with backoff and its error kept, the others go through", async () => {
    const first = await paidOrder();
    const last = await paidOrder();
    const a = await recordedDelivery(first.payload);
    const c = await recordedDelivery(last.payload);
    const missing = { kind: "shopify-delivery", deliveryId: crypto.randomUUID() };

    const result = await runQueue(FULFILMENT, [a.job, missing, c.job]);
    expect(result.outcome).toBe("ok");
    expect(result.explicitAcks).toHaveLength(2);
    expect(result.retryMessages).toEqual([{ msgId: expect.any(String) }]);
    expect(result.delays).toEqual([10]);
    expect(result.explicitAcks).not.toContain(result.retryMessages[0]!.msgId);
    expect((await keysOf(first.payload.id)).map((k) => k.code)).toEqual([first.code]);
    expect((await keysOf(last.payload.id)).map((k) => k.code)).toEqual([last.code]);
    expect(await failure(`shopify:${missing.deliveryId}`)).toMatchObject({
      kind: "shopify-delivery",
      attempts: 1,
      deadAt: null,
      lastError: expect.stringContaining("is not recorded"),
    });

    // Each later attempt waits longer.
    const again = await runQueue(FULFILMENT, [missing], 3);
    expect(again.delays).toEqual([90]);
    expect(await failure(`shopify:${missing.deliveryId}`)).toMatchObject({ attempts: 3 });
  });

  it("loses and repeats nothing when a job breaks halfway through a batch: the retry finishes it with the same key", async () => {
    const orders = [await paidOrder(), await paidOrder(), await paidOrder()];
    const jobs = await Promise.all(orders.map((o) => recordedDelivery(o.payload)));
    const middle = orders[1]!;
    const restore = await failLicenceFor(middle.code);
    const broken = await runQueue(
      FULFILMENT,
      jobs.map((j) => j.job),
    );
    await restore();
    expect(broken.explicitAcks).toHaveLength(2);
    expect(broken.retryMessages).toHaveLength(1);
    // The key was claimed before the step that broke; the delivery says what went wrong.
    expect((await keysOf(middle.payload.id)).map((k) => k.code)).toEqual([middle.code]);
    expect(await db.select().from(licences).where(eq(licences.key, middle.code))).toHaveLength(0);
    expect(await delivery(jobs[1]!.id)).toMatchObject({ outcome: "error", detail: expect.stringContaining("licence store unavailable") });
    expect(await keyMails(middle.payload.id)).toHaveLength(0);

    // The queue delivers the failed message again; a lost ack may bring the others back too.
    const retried = await runQueue(
      FULFILMENT,
      jobs.map((j) => j.job),
      2,
    );
    expect(retried).toMatchObject({ outcome: "ok", retryMessages: [] });
    expect(retried.explicitAcks).toHaveLength(3);
    for (const order of orders) {
      expect((await keysOf(order.payload.id)).map((k) => k.code)).toEqual([order.code]);
      expect(await db.select().from(licences).where(eq(licences.key, order.code))).toHaveLength(1);
      expect(await keyMails(order.payload.id)).toHaveLength(1);
    }
    expect(await delivery(jobs[1]!.id)).toMatchObject({ outcome: "processed", payload: null });
    expect(await failure(`shopify:${jobs[1]!.id}`)).toBeUndefined();
  });

  it("hands a crypto order its key once however often its job runs, and retries while there is no stock", async () => {
    const { variant, order, orderNumber } = await submittedCryptoOrder();
    const job = { kind: "crypto-order", orderNumber, code: null };
    const empty = await runQueue(FULFILMENT, [job]);
    expect(empty.retryMessages).toHaveLength(1);
    expect(await failure(`crypto:${orderNumber}`)).toMatchObject({ lastError: "No codes in stock for Vertex Rust - 30 Days" });

    await addCodes(db, { id: variant, title: "Vertex Rust - 30 Days" }, `CQ-${orderNumber}-1\nCQ-${orderNumber}-2`);
    const runs = await runQueue(FULFILMENT, [job, job], 2);
    expect(runs.explicitAcks).toHaveLength(2);
    expect(await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get()).toMatchObject({
      status: "complete",
      productCode: `CQ-${orderNumber}-1`,
    });
    expect(
      (
        await db
          .select()
          .from(productCodes)
          .where(and(eq(productCodes.variantId, variant), eq(productCodes.isUsed, true)))
      ).map((c) => c.code),
    ).toEqual([`CQ-${orderNumber}-1`]);
    expect(
      await db
        .select()
        .from(licences)
        .where(eq(licences.key, `CQ-${orderNumber}-1`)),
    ).toHaveLength(1);
    expect(
      await db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.dedupeKey, `crypto-key:${order.id}`)),
    ).toHaveLength(1);
    expect(await failure(`crypto:${orderNumber}`)).toBeUndefined();
  });

  it("gives back the key a broken run claimed when the admin then cancels the crypto order", async () => {
    const admin = await signIn(await createAccount({ admin: true }), unique("ip"));
    const { member, variant, order, orderNumber } = await submittedCryptoOrder();
    await addCodes(db, { id: variant, title: "Vertex Rust - 30 Days" }, `CB-${orderNumber}`, Date.now() - 60_000);
    const trigger = `fail_complete_${orderNumber.replace(/\W/g, "_")}`;
    await env.DB.exec(
      `CREATE TRIGGER ${trigger} BEFORE UPDATE ON crypto_orders WHEN NEW.order_number = '${orderNumber}' AND NEW.status = 'complete' BEGIN SELECT RAISE(ABORT, 'order store unavailable'); END;`,
    );
    const broken = await runQueue(FULFILMENT, [{ kind: "crypto-order", orderNumber, code: null }]);
    await env.DB.exec(`DROP TRIGGER ${trigger};`);
    expect(broken.retryMessages).toHaveLength(1);
    expect(
      await db
        .select()
        .from(productCodes)
        .where(eq(productCodes.code, `CB-${orderNumber}`))
        .get(),
    ).toMatchObject({ isUsed: true, orderId: orderNumber });

    const seen = (await db.select({ updatedAt: cryptoOrders.updatedAt }).from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get())!
      .updatedAt;
    const cancelled = await call("/dashboard/manage-codes/crypto-orders", {
      form: { intent: "cancel", orderId: order.id, seen: String(seen) },
      cookie: admin,
    });
    expect(cancelled.status).toBe(200);
    expect(
      await db
        .select()
        .from(productCodes)
        .where(eq(productCodes.code, `CB-${orderNumber}`))
        .get(),
    ).toMatchObject({ isUsed: false, orderId: null });
    expect(
      await db
        .select()
        .from(licences)
        .where(eq(licences.key, `CB-${orderNumber}`)),
    ).toHaveLength(0);
    // The queue's retry finds the order cancelled and hands out nothing.
    expect((await runQueue(FULFILMENT, [{ kind: "crypto-order", orderNumber, code: null }], 2)).explicitAcks).toHaveLength(1);
    expect(
      await db
        .select()
        .from(productCodes)
        .where(eq(productCodes.code, `CB-${orderNumber}`))
        .get(),
    ).toMatchObject({ isUsed: false });
    expect(await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, member.email))).toHaveLength(0);
  });

  it("retries a message it cannot read, and never runs it", async () => {
    const result = await runQueue(FULFILMENT, [{ kind: "refund-everything" }, "nonsense"]);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toHaveLength(2);
    const rows = await Promise.all(result.retryMessages.map((m) => failure(`message:${m.msgId}`)));
    expect(rows.map((r) => r?.lastError)).toEqual([expect.stringContaining("Not a job"), expect.stringContaining("Not a job")]);
  });
});

describe("fulfilment queue: jobs the queue gives up on", () => {
  async function adminCookie() {
    return signIn(await createAccount({ admin: true }), unique("ip"));
  }
  const retry = (id: string, cookie: string) => call("/dashboard/manage-codes/jobs", { form: { intent: "retry", id }, cookie });

  it("shows a job that failed its last attempt on the admin's card, with its error, and sends it again on Retry", async () => {
    const { code, payload } = await paidOrder();
    // A delivery the consumer cannot find: it fails on every attempt until it is recorded.
    const deliveryId = crypto.randomUUID();
    const job = { kind: "shopify-delivery", deliveryId };
    const key = `shopify:${deliveryId}`;
    const last = await runQueue(FULFILMENT, [job], 6);
    expect(last.retryMessages).toHaveLength(1);
    // After its last retry the queue moves the message to the dead-letter queue.
    const dead = await runQueue(DEAD_LETTERS, [job]);
    expect(dead.explicitAcks).toHaveLength(1);
    expect(await failure(key)).toMatchObject({
      attempts: 6,
      deadAt: expect.any(Number),
      lastError: expect.stringContaining("is not recorded"),
    });

    const admin = await adminCookie();
    const page = await (await call("/dashboard/manage-codes", { cookie: admin })).text();
    expect(page).toContain("Failed jobs (");
    expect(page).toContain(deliveryId);
    expect(page).toContain(`Webhook delivery ${deliveryId} is not recorded`);

    // What was wrong is put right; Retry sends the job through the real queue again.
    await db
      .insert(webhookDeliveries)
      .values({ id: deliveryId, topic: "orders/paid", outcome: "queued", payload: JSON.stringify(payload), receivedAt: Date.now() });
    const retried = await retry(key, admin);
    expect(retried.status).toBe(200);
    expect(await retried.text()).toContain("Job sent again");
    await handled(deliveryId);
    expect(await delivery(deliveryId)).toMatchObject({ outcome: "processed" });
    expect((await keysOf(payload.id)).map((k) => k.code)).toEqual([code]);
    await expect.poll(() => failure(key)).toBeUndefined();
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "job.retry"), eq(auditLog.subject, key)))
        .get(),
    ).toBeDefined();

    // Nothing is left to retry.
    const twice = await retry(key, admin);
    expect(twice.status).toBe(404);
    expect(await twice.text()).toContain("This job is not waiting for a retry");
  });

  it("lets only admins retry, and refuses a malformed request", async () => {
    const deliveryId = crypto.randomUUID();
    await runQueue(DEAD_LETTERS, [{ kind: "shopify-delivery", deliveryId }]);
    const key = `shopify:${deliveryId}`;
    const member = await signIn(await createAccount(), unique("ip"));
    expect((await retry(key, member)).status).toBe(403);
    expect((await call("/dashboard/manage-codes/jobs", { form: { intent: "retry", id: key } })).status).toBeGreaterThanOrEqual(300);
    const admin = await adminCookie();
    expect((await call("/dashboard/manage-codes/jobs", { form: { intent: "retry", id: "" }, cookie: admin })).status).toBe(400);
    expect((await call("/dashboard/manage-codes/jobs", { form: { intent: "drop", id: key }, cookie: admin })).status).toBe(400);
    // Still on the list, untouched.
    expect(await failure(key)).toMatchObject({ deadAt: expect.any(Number) });
  });

  it("shows a crypto order the queue could not fulfil (no stock), named by its order number", async () => {
    const orderNumber = `CRYPTO-${unique("D").toUpperCase().slice(0, 10)}`;
    await runQueue(DEAD_LETTERS, [{ kind: "crypto-order", orderNumber, code: null }]);
    const page = await (await call("/dashboard/manage-codes", { cookie: await adminCookie() })).text();
    expect(page).toContain("Crypto order");
    expect(page).toContain(orderNumber);
  });
});
