// Crypto orders paid on chain, through the Worker as a buyer, an admin and the cron see them,
// against a local Esplora stub (test/esplora-stub.ts) that a test pays into and mines blocks on.
import { createExecutionContext, env } from "cloudflare:test";
import { and, eq, inArray, max, ne } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { MAX_OPEN_ORDERS_PER_MEMBER } from "~/server/crypto/crypto-orders.server";
import { EXPIRY_GRACE_MS } from "~/server/crypto/crypto-watch.server";
import { parseAccountKey, receiveAddress } from "~/server/crypto/wallet.server";
import {
  auditLog,
  cryptoOrders,
  licences,
  mailOutbox,
  productCodes,
  resellerAccounts,
  resellerLedger,
  userSubscriptions,
  walletCursors,
} from "~/server/platform/db/schema.server";
import worker from "../../workers/app";
import { call, createAccount, cryptoKeySent, db, ORIGIN, runQueue, signIn, unique } from "../helpers";

const MONTH = "gid://shopify/ProductVariant/4710000000002"; // Vertex Rust - 30 Days, $89.99
const WEEK = "gid://shopify/ProductVariant/4710000000001";
const FULFILMENT = "keyshop-jobs";
/** $89.99 at the stub's $100,000 per bitcoin, in satoshis. */
const MONTH_IN_SATS = 89_990;

/** The audit entries written when the watcher flagged an order for review. */
const reviewAudits = (orderNumber: string) =>
  db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.subject, `crypto:${orderNumber}`), eq(auditLog.action, "crypto-order.review")))
    .all();

const STUB = env.CRYPTO_BTC_EXPLORER_URL.replace(/\/btc$/, "");
const NET = { BTC: "btc", LTC: "ltc" } as const;

async function chain(path: string, body: object): Promise<{ txid?: string }> {
  const response = await fetch(`${STUB}/_control/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`stub ${path}: ${response.status}`);
  return response.json();
}

type Row = typeof cryptoOrders.$inferSelect;
const pay = async (order: Row, units: number) =>
  (await chain("pay", { net: NET[order.cryptoType], address: order.walletAddress, units })).txid!;
const mine = (order: Row, blocks = 1) => chain("mine", { net: NET[order.cryptoType], address: order.walletAddress, blocks });
const drop = (order: Row, txid: string) => chain("drop", { net: NET[order.cryptoType], txid });
const behave = (order: Row, behaviour: "ok" | "down" | "garbage") =>
  chain("behaviour", { net: NET[order.cryptoType], address: order.walletAddress, behaviour });
const hits = async (order: Row) =>
  ((await (await fetch(`${STUB}/_control/hits/${NET[order.cryptoType]}/${order.walletAddress}`)).json()) as { hits: number }).hits;

/** The Worker answering with some settings changed, as a shop configured otherwise would. */
const fetchWith = (overrides: Partial<Env>, request: Request) =>
  worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...overrides }, createExecutionContext());

async function member() {
  const account = await createAccount();
  return { account, cookie: await signIn(account, unique("ip")) };
}

const api = async (form: Record<string, string>, cookie?: string) => {
  const response = await call("/api/crypto-orders", { form, cookie });
  return {
    status: response.status,
    body: (await response.json()) as { ok: boolean; message?: string; order?: Record<string, unknown> & { orderNumber: string } },
  };
};

const row = async (orderNumber: string) => (await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get())!;

async function open(cookie: string, variantId = MONTH, coin = "BTC") {
  const opened = await api({ variantId, coin }, cookie);
  expect(opened.status).toBe(200);
  return row(opened.body.order!.orderNumber);
}

/**
 * The buyer's tracker, loaded as if the last chain check were long enough ago (a check is
 * otherwise skipped within 10 s of the last); answers the page and the order as it is now.
 */
async function track(order: Row, cookie: string, overrides: Partial<Env> = {}) {
  await db.update(cryptoOrders).set({ checkedAt: null }).where(eq(cryptoOrders.id, order.id));
  const request = new Request(`${ORIGIN}/dashboard/crypto-tracker?order=${encodeURIComponent(order.orderNumber)}`, {
    headers: { Cookie: cookie, "CF-Connecting-IP": "198.51.100.1" },
  });
  const response = await fetchWith(overrides, request);
  expect(response.status).toBe(200);
  return { html: visible(await response.text()), order: await row(order.orderNumber) };
}

/** The cron's check of one order, run by the queue's consumer (it also reads expired orders). */
async function sweep(order: Row) {
  await db.update(cryptoOrders).set({ checkedAt: null }).where(eq(cryptoOrders.id, order.id));
  await runQueue(FULFILMENT, [{ kind: "chain-check", orderNumbers: [order.orderNumber] }]);
  return row(order.orderNumber);
}

/** A page's HTML without the comments React puts between adjacent pieces of text. */
const visible = (html: string) => html.replaceAll("<!-- -->", "");

/** Moves the order's quote into the past, beyond the grace for payments nobody looked for yet. */
const expire = (order: Row) =>
  db
    .update(cryptoOrders)
    .set({ expiresAt: Date.now() - EXPIRY_GRACE_MS - 1000 })
    .where(eq(cryptoOrders.id, order.id));

async function stock(variantId = MONTH) {
  const code = `STOCK-${unique("k").toUpperCase()}`;
  await db.insert(productCodes).values({ variantId, variantTitle: "Vertex Rust - 30 Days", code, createdAt: 0 });
  return code;
}

const admin = async () => signIn(await createAccount({ admin: true }), unique("ip"));
const adminQueue = (form: Record<string, string>, cookie: string) => call("/dashboard/manage-codes/crypto-orders", { form, cookie });

describe("crypto orders on chain", () => {
  it("quote the plan in the coin at an address of their own, from the shop's wallet, never reused", async () => {
    const { cookie } = await member();
    const opened = await api({ variantId: MONTH, coin: "BTC" }, cookie);
    const view = opened.body.order!;
    const order = await row(view.orderNumber);
    expect(view).toMatchObject({
      status: "pending",
      coin: "BTC",
      amountCents: 8999,
      amountUnits: MONTH_IN_SATS,
      rateCents: 10_000_000,
      rateIsDemo: false,
    });
    const wallet = parseAccountKey("BTC", env.CRYPTO_BTC_XPUB);
    if (!wallet.ok) throw new Error(wallet.problem.message);
    expect(order.walletAddress).toBe(receiveAddress(wallet.value, order.addressIndex!));
    expect(view.paymentUri).toBe(`bitcoin:${order.walletAddress}?amount=0.0008999`);
    expect(String(view.qr)).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(order.expiresAt! - order.createdAt).toBe(30 * 60_000);

    const ltc = await open(cookie, MONTH, "LTC");
    // $89.99 at $100 per litecoin.
    expect(ltc).toMatchObject({ cryptoType: "LTC", amountUnits: 89_990_000 });
    expect(ltc.walletAddress).toMatch(/^ltc1q/);
    // Another member's order gets the next address.
    const other = await open((await member()).cookie);
    expect(other.addressIndex).toBeGreaterThan(order.addressIndex!);
    expect(other.walletAddress).not.toBe(order.walletAddress);
  });

  it("carry on after the highest address an order holds when the wallet's cursor is lost", async () => {
    const first = await open((await member()).cookie);
    await db.delete(walletCursors).where(eq(walletCursors.account, first.walletAccount!));
    const next = await open((await member()).cookie);
    const [highest] = await db
      .select({ index: max(cryptoOrders.addressIndex) })
      .from(cryptoOrders)
      .where(and(eq(cryptoOrders.walletAccount, first.walletAccount!), ne(cryptoOrders.id, next.id)));
    expect(next.addressIndex).toBe(highest!.index! + 1);
    expect(await open((await member()).cookie)).toMatchObject({ addressIndex: next.addressIndex! + 1 });
  });

  it("go pending -> processing -> complete as a payment shows up and confirms, and hand out one key, on the tracker and by e-mail", async () => {
    const { account, cookie } = await member();
    await stock();
    const order = await open(cookie);
    expect((await track(order, cookie)).html).toContain("Pending Payment");

    const txid = await pay(order, MONTH_IN_SATS);
    const seen = await track(order, cookie);
    expect(seen.order).toMatchObject({ status: "processing", receivedUnits: MONTH_IN_SATS, confirmations: 0, paidAt: null });
    expect(seen.html).toContain("Waiting for its confirmation");
    expect(seen.html).toContain(txid);

    await mine(order);
    await track(order, cookie);
    await cryptoKeySent(order.id);
    const done = await track(order, cookie);
    const [key] = await db.select().from(productCodes).where(eq(productCodes.orderId, order.orderNumber)).all();
    const code = key!.code;
    expect(done.order).toMatchObject({ status: "complete", productCode: code, confirmations: 1, review: null });
    expect(done.html).toContain(code);
    const mail = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, account.email)).all();
    expect(mail.filter((m) => m.textBody.includes(code))).toHaveLength(1);
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get()).toMatchObject({
      status: "active",
      variantTitle: "30 Days",
    });
    expect(await db.select().from(licences).where(eq(licences.key, code)).get()).toMatchObject({ ownerEmail: account.email });
  });

  it("add up two partial payments, showing what is still due in between", async () => {
    const { cookie } = await member();
    await stock();
    const order = await open(cookie);
    await pay(order, 40_000);
    const part = await track(order, cookie);
    expect(part.order).toMatchObject({ status: "underpaid", receivedUnits: 40_000 });
    expect(part.html).toContain("Partially Paid");
    expect(part.html).toContain("Send the remaining 0.0004999 BTC to the same address");
    await pay(order, MONTH_IN_SATS - 40_000);
    expect((await track(order, cookie)).order.status).toBe("processing");
    await mine(order);
    await track(order, cookie);
    await cryptoKeySent(order.id);
    expect((await row(order.orderNumber)).status).toBe("complete");
  });

  it("count a payment short by no more than the tolerance as paid, and one short by more as underpaid", async () => {
    const { cookie } = await member();
    await stock();
    const tolerant = { CRYPTO_UNDERPAYMENT_TOLERANCE_PERCENT: "2" } as Partial<Env>;
    const within = await open(cookie);
    await pay(within, Math.ceil(MONTH_IN_SATS * 0.98));
    await mine(within);
    await track(within, cookie, tolerant);
    await cryptoKeySent(within.id);
    expect((await row(within.orderNumber)).status).toBe("complete");

    const beyond = await open(cookie, WEEK);
    await pay(beyond, Math.floor((beyond.amountUnits ?? 0) * 0.97));
    await mine(beyond);
    expect((await track(beyond, cookie, tolerant)).order).toMatchObject({ status: "underpaid", paidAt: null });
  });

  it("complete an overpaid order and flag it for the admin, who marks it handled", async () => {
    const { cookie } = await member();
    await stock();
    const order = await open(cookie);
    await pay(order, MONTH_IN_SATS * 2);
    await mine(order);
    await track(order, cookie);
    await cryptoKeySent(order.id);
    expect(await row(order.orderNumber)).toMatchObject({ status: "complete", review: "overpaid" });
    expect(await reviewAudits(order.orderNumber)).toEqual([
      expect.objectContaining({ actorUserId: null, detail: expect.stringContaining('"review":"overpaid"') }),
    ]);
    // The buyer is told how much was over and what becomes of it.
    const tracked = (await track(order, cookie)).html;
    expect(tracked).toContain("You sent 0.0008999 BTC more than was due (about $89.99 at the quoted rate).");
    expect(tracked).toContain("Our support team will refund it to you or credit it to your account");
    const adminCookie = await admin();
    const page = await (await call("/dashboard/manage-codes", { cookie: adminCookie })).text();
    expect(page).toContain(order.orderNumber);
    expect(page).toContain("Overpaid");
    expect((await adminQueue({ intent: "resolve", orderId: order.id }, adminCookie)).status).toBe(200);
    expect((await row(order.orderNumber)).review).toBeNull();
    expect((await track(order, cookie)).html).toContain("Our support team has dealt with the difference.");
    expect(await (await call("/dashboard/manage-codes", { cookie: adminCookie })).text()).not.toContain(order.walletAddress);
    // Nothing else can be "resolved".
    expect((await adminQueue({ intent: "resolve", orderId: order.id }, adminCookie)).status).toBe(409);
  });

  it("are read for late money by the tracker only in the day after the quote ran out; later, by the cron's sweep", async () => {
    const { cookie } = await member();
    const order = await open(cookie);
    await db
      .update(cryptoOrders)
      .set({ expiresAt: Date.now() - 25 * 60 * 60_000 })
      .where(eq(cryptoOrders.id, order.id));
    const expired = await track(order, cookie);
    expect(expired.order.status).toBe("expired");
    expect(expired.html).not.toContain("keep this page open");
    await pay(order, MONTH_IN_SATS);
    const before = await hits(order);
    expect((await track(order, cookie)).order.status).toBe("expired");
    expect(await hits(order)).toBe(before);
    expect(await sweep(order)).toMatchObject({ status: "paid-late", review: "paid-late" });
  });

  it("expire when nothing arrives in time, and flag money that arrives later for the admin, who can fulfil it", async () => {
    const { cookie } = await member();
    const order = await open(cookie);
    await expire(order);
    const expired = await track(order, cookie);
    expect(expired.order).toMatchObject({ status: "expired", review: null });
    expect(expired.html).toContain("This order expired before a payment arrived");
    expect(expired.html).not.toContain("Open in wallet");

    // For a day after its quote ran out, the buyer's tracker keeps looking, and says so.
    expect(expired.html).toContain("If you sent money just now, keep this page open");
    await pay(order, MONTH_IN_SATS);
    const late = await track(order, cookie);
    expect(late.order).toMatchObject({ status: "paid-late", review: "paid-late", paidAt: null });
    expect(late.html).toContain("Your payment arrived after the quote ran out");

    const adminCookie = await admin();
    expect(await (await call("/dashboard/manage-codes", { cookie: adminCookie })).text()).toContain("Paid after expiry");
    await stock();
    expect((await adminQueue({ intent: "fulfil", orderId: order.id, source: "stock" }, adminCookie)).status).toBe(200);
    await cryptoKeySent(order.id);
    const [key] = await db.select().from(productCodes).where(eq(productCodes.orderId, order.orderNumber)).all();
    expect(await row(order.orderNumber)).toMatchObject({ status: "complete", productCode: key!.code, review: null });
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.subject, `crypto:${order.orderNumber}`), eq(auditLog.action, "crypto-order.fulfil")))
        .get(),
    ).toBeDefined();
  });

  it("flag an order still underpaid when its quote runs out; the admin may cancel it once refunded", async () => {
    const { cookie } = await member();
    const order = await open(cookie);
    await pay(order, 10_000);
    await track(order, cookie);
    await expire(order);
    const short = await track(order, cookie);
    expect(short.order).toMatchObject({ status: "expired", review: "underpaid" });
    // Flagged once: reading the order again writes no second entry.
    await track(order, cookie);
    expect(await reviewAudits(order.orderNumber)).toEqual([
      expect.objectContaining({ detail: expect.stringContaining('"review":"underpaid"') }),
    ]);
    expect(short.html).toContain("The quote ran out with 0.0001 BTC of 0.0008999 BTC received");
    const adminCookie = await admin();
    expect(await (await call("/dashboard/manage-codes", { cookie: adminCookie })).text()).toContain("Underpaid, expired");
    expect(
      (await adminQueue({ intent: "cancel", orderId: order.id, seen: String((await row(order.orderNumber)).updatedAt) }, adminCookie))
        .status,
    ).toBe(200);
    expect(await row(order.orderNumber)).toMatchObject({ status: "cancelled", review: null });
  });

  it("send a payment that stays unconfirmed for a day past the quote to a person, instead of waiting forever", async () => {
    const { cookie } = await member();
    const order = await open(cookie);
    await pay(order, MONTH_IN_SATS);
    expect((await track(order, cookie)).order.status).toBe("processing");
    await db
      .update(cryptoOrders)
      .set({ expiresAt: Date.now() - 25 * 60 * 60_000 })
      .where(eq(cryptoOrders.id, order.id));
    // The tracker reads the chain only for open orders; this one still is.
    expect((await track(order, cookie)).order).toMatchObject({ status: "paid-late", review: "paid-late", paidAt: null });
    // From now on only the cron looks (hourly), not every tracker load.
    const before = await hits(order);
    await track(order, cookie);
    expect(await hits(order)).toBe(before);
  });

  it("go back to pending when an unconfirmed payment disappears from the chain", async () => {
    const { cookie } = await member();
    await stock();
    const order = await open(cookie);
    const txid = await pay(order, MONTH_IN_SATS);
    expect((await track(order, cookie)).order.status).toBe("processing");
    await drop(order, txid);
    expect((await track(order, cookie)).order).toMatchObject({ status: "pending", receivedUnits: 0, paidAt: null });
    await pay(order, MONTH_IN_SATS);
    await mine(order);
    await track(order, cookie);
    await cryptoKeySent(order.id);
    expect((await row(order.orderNumber)).status).toBe("complete");
  });

  it("hand out one key however many watchers and settlements run at once", async () => {
    const { account, cookie } = await member();
    await stock();
    await stock();
    const order = await open(cookie);
    await pay(order, MONTH_IN_SATS);
    await mine(order);
    await db.update(cryptoOrders).set({ checkedAt: null }).where(eq(cryptoOrders.id, order.id));
    await Promise.all([
      call(`/dashboard/crypto-tracker?order=${order.orderNumber}`, { cookie }),
      call(`/dashboard/crypto-tracker?order=${order.orderNumber}`, { cookie }),
      runQueue(FULFILMENT, [{ kind: "chain-check", orderNumbers: [order.orderNumber] }]),
    ]);
    const job = { kind: "crypto-order", orderNumber: order.orderNumber, code: null };
    await Promise.all([runQueue(FULFILMENT, [job, job]), runQueue(FULFILMENT, [job])]);
    await cryptoKeySent(order.id);
    const keys = await db.select().from(productCodes).where(eq(productCodes.orderId, order.orderNumber)).all();
    expect(keys).toHaveLength(1);
    expect((await row(order.orderNumber)).productCode).toBe(keys[0]!.code);
    expect(
      await db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.dedupeKey, `crypto-key:${order.id}`))
        .all(),
    ).toHaveLength(1);
    expect(await db.select().from(licences).where(eq(licences.ownerEmail, account.email)).all()).toHaveLength(1);
  });

  it("change nothing while the explorer is down or answers garbage, and catch up once it is back", async () => {
    const { cookie } = await member();
    const order = await open(cookie);
    await pay(order, MONTH_IN_SATS);
    for (const behaviour of ["down", "garbage"] as const) {
      await behave(order, behaviour);
      const blind = await track(order, cookie);
      expect(blind.order).toMatchObject({ status: "pending", receivedUnits: 0 });
      expect(blind.html).toContain("Pending Payment");
    }
    await behave(order, "ok");
    expect((await track(order, cookie)).order).toMatchObject({ status: "processing", receivedUnits: MONTH_IN_SATS });
  });

  it("read an order's chain at most once per 10 seconds, however often the tracker is loaded", async () => {
    const { cookie } = await member();
    const order = await open(cookie);
    await track(order, cookie);
    const before = await hits(order);
    for (let i = 0; i < 3; i++) expect((await call(`/dashboard/crypto-tracker?order=${order.orderNumber}`, { cookie })).status).toBe(200);
    expect(await hits(order)).toBe(before);
  });

  it("are checked by the cron through the queue, which settles them without anyone watching", async () => {
    const { cookie } = await member();
    await stock();
    const order = await open(cookie);
    await pay(order, MONTH_IN_SATS);
    await mine(order);
    const ctx = createExecutionContext();
    await worker.scheduled({ cron: "*/5 * * * *", scheduledTime: Date.now(), noRetry() {} } as ScheduledController, env, ctx);
    await cryptoKeySent(order.id);
    expect((await row(order.orderNumber)).status).toBe("complete");
  });

  it("are read one chain-check message per queue invocation; the others go back on the queue for later ones", async () => {
    const orders = await Promise.all([1, 2, 3].map(async () => open((await member()).cookie)));
    const numbers = orders.map((o) => o.orderNumber);
    const checkedAt = async () => {
      const rows = await db
        .select({ orderNumber: cryptoOrders.orderNumber, checkedAt: cryptoOrders.checkedAt })
        .from(cryptoOrders)
        .where(inArray(cryptoOrders.orderNumber, numbers));
      return numbers.map((n) => rows.find((r) => r.orderNumber === n)!.checkedAt);
    };
    await db.update(cryptoOrders).set({ checkedAt: null }).where(inArray(cryptoOrders.orderNumber, numbers));
    const result = await runQueue(
      FULFILMENT,
      numbers.map((orderNumber) => ({ kind: "chain-check", orderNumbers: [orderNumber] })),
    );
    // Every message is settled in this invocation (none retried, so none nearer the dead-letter queue)...
    expect(result.explicitAcks).toHaveLength(3);
    expect(result.retryMessages).toEqual([]);
    // ...but only the first one's chain was read.
    const [first, ...rest] = await checkedAt();
    expect(first).not.toBeNull();
    expect(rest).toEqual([null, null]);
    // The others come back as new messages and are read by later invocations.
    await vi.waitFor(
      async () => {
        if ((await checkedAt()).includes(null)) throw new Error("not every order was read yet");
      },
      { timeout: 15_000, interval: 100 },
    );
  });

  it("show an order only to the member who created it, and to staff who may read orders (admins and support)", async () => {
    const owner = await member();
    const other = await member();
    const order = await open(owner.cookie, WEEK);
    for (const number of [order.orderNumber, "CRYPTO-DOESNOTEXIST"]) {
      const html = await (await call(`/dashboard/crypto-tracker?order=${number}`, { cookie: other.cookie })).text();
      expect(html).toContain("No order found with this order number");
      expect(html).not.toContain(order.walletAddress);
    }
    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    for (const staff of [await admin(), support])
      expect(await (await call(`/dashboard/crypto-tracker?order=${order.orderNumber}`, { cookie: staff })).text()).toContain(
        order.walletAddress,
      );

    // The key of a complete order is its buyer's: staff reveal it on the order's page, where the
    // reveal is audited, not here.
    const key = `TRACKED-${unique("k").toUpperCase()}`;
    await db.update(cryptoOrders).set({ status: "complete", productCode: key, paidAt: Date.now() }).where(eq(cryptoOrders.id, order.id));
    expect(await (await call(`/dashboard/crypto-tracker?order=${order.orderNumber}`, { cookie: owner.cookie })).text()).toContain(key);
    for (const staff of [await admin(), support]) {
      const html = visible(await (await call(`/dashboard/crypto-tracker?order=${order.orderNumber}`, { cookie: staff })).text());
      expect(html).not.toContain(key);
      expect(html).toContain(`/dashboard/orders/crypto/${order.orderNumber}`);
    }
  });

  it("require a signed-in member, a real plan and a known coin; reuse an untouched order and cap open ones", async () => {
    expect((await api({ variantId: MONTH })).status).toBe(401);
    const { account, cookie } = await member();
    expect((await api({ variantId: "gid://shopify/ProductVariant/123" }, cookie)).status).toBe(404);
    expect((await api({ variantId: "nonsense" }, cookie)).status).toBe(400);
    expect((await api({ variantId: MONTH, coin: "DOGE" }, cookie)).body).toEqual({ ok: false, message: "Choose BTC or LTC" });
    const first = await open(cookie);
    expect((await open(cookie)).orderNumber).toBe(first.orderNumber);
    // Once money was seen, the order is not handed out again to a new dialog.
    await pay(first, 1000);
    await track(first, cookie);
    expect((await open(cookie)).orderNumber).not.toBe(first.orderNumber);
    // Orders with money on them are never reused, so each of these is a new one, up to the cap.
    const openCount = async () =>
      (
        await db
          .select()
          .from(cryptoOrders)
          .where(and(eq(cryptoOrders.userId, account.id), inArray(cryptoOrders.status, ["pending", "underpaid"])))
          .all()
      ).length;
    while ((await openCount()) < MAX_OPEN_ORDERS_PER_MEMBER) {
      const next = await open(cookie);
      await pay(next, 1);
      await track(next, cookie);
    }
    const refused = await api({ variantId: WEEK, coin: "BTC" }, cookie);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toContain("too many unpaid crypto orders");
  });

  it("top up a reseller's balance once the payment is confirmed, exactly once, in the ledger", async () => {
    const { account, cookie } = await member();
    const tooSmall = await call("/dashboard/resell", { form: { intent: "add-balance", amount: "9.99", coin: "BTC" }, cookie });
    expect(tooSmall.status).toBe(400);
    expect(await tooSmall.text()).toContain("The minimum top-up is $10.00");

    const response = await call("/dashboard/resell", { form: { intent: "add-balance", amount: "25", coin: "BTC" }, cookie });
    expect(response.status).toBe(302);
    const orderNumber = new URL(response.headers.get("Location")!, ORIGIN).searchParams.get("order")!;
    const order = await row(orderNumber);
    expect(order).toMatchObject({ purpose: "top-up", amountCents: 2500, amountUnits: 25_000, userId: account.id });
    await pay(order, 25_000);
    await mine(order);
    await track(order, cookie);
    const job = { kind: "crypto-order", orderNumber, code: null };
    await runQueue(FULFILMENT, [job, job]);
    const done = await track(order, cookie);
    expect(done.order.status).toBe("complete");
    expect(done.html).toContain("$25.00 was added to your balance");
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, account.id)).get())?.balanceCents).toBe(2500);
    expect(await db.select().from(resellerLedger).where(eq(resellerLedger.userId, account.id)).all()).toMatchObject([
      { kind: "top-up", amountCents: 2500, reference: orderNumber },
    ]);
    expect(await (await call("/dashboard/resell", { cookie })).text()).toContain("Crypto top-up");
  });

  it("never credit a top-up an admin cancelled before it was settled", async () => {
    const { account, cookie } = await member();
    const response = await call("/dashboard/resell", { form: { intent: "add-balance", amount: "40", coin: "LTC" }, cookie });
    const orderNumber = new URL(response.headers.get("Location")!, ORIGIN).searchParams.get("order")!;
    // Paid, then cancelled by an admin before its settlement job ran.
    await db.update(cryptoOrders).set({ paidAt: Date.now(), status: "processing" }).where(eq(cryptoOrders.orderNumber, orderNumber));
    const order = await row(orderNumber);
    expect((await adminQueue({ intent: "cancel", orderId: order.id, seen: String(order.updatedAt) }, await admin())).status).toBe(200);
    await runQueue(FULFILMENT, [{ kind: "crypto-order", orderNumber, code: null }]);
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, account.id)).get())?.balanceCents ?? 0).toBe(0);
    expect(await db.select().from(resellerLedger).where(eq(resellerLedger.userId, account.id)).all()).toHaveLength(0);
    expect((await row(orderNumber)).status).toBe("cancelled");
  });

  it("are not offered without a wallet: no crypto checkout, a refusal, and a warning for admins", async () => {
    const off = {
      CRYPTO_BTC_XPUB: "",
      CRYPTO_LTC_XPUB: "zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE",
    };
    const get = (path: string, cookie?: string) =>
      fetchWith(off, new Request(`${ORIGIN}${path}`, { headers: cookie ? { Cookie: cookie } : {} }));
    // (Each with a query of its own: the page cache keeps pages by address.)
    const product = await (await get("/product/vertex-rust?wallets=none")).text();
    expect(product).not.toContain("Pay with Cryptocurrency");
    expect(await (await call("/product/vertex-rust?wallets=set")).text()).toContain("Pay with Cryptocurrency");

    const { cookie } = await member();
    const refused = await fetchWith(
      off,
      new Request(`${ORIGIN}/api/crypto-orders`, {
        method: "POST",
        headers: { Cookie: cookie, Origin: ORIGIN },
        body: new URLSearchParams({ variantId: MONTH, coin: "BTC" }),
      }),
    );
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ ok: false, message: "BTC payments are not available right now" });

    const page = await (await get("/dashboard/manage-codes", await admin())).text();
    expect(page).toContain("BTC payments are off: set CRYPTO_BTC_XPUB");
    expect(page).toContain("CRYPTO_LTC_XPUB holds a private key");
    // The Bitcoin key given for Litecoin too would watch LTC where the Litecoin wallet never looks.
    const same = { CRYPTO_LTC_XPUB: env.CRYPTO_BTC_XPUB };
    const shared = await fetchWith(same, new Request(`${ORIGIN}/dashboard/manage-codes`, { headers: { Cookie: await admin() } }));
    expect(await shared.text()).toContain("CRYPTO_LTC_XPUB is the same key as CRYPTO_BTC_XPUB");
  });
});
