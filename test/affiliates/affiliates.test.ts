// The affiliate programme through the Worker: applying and approval, the referral link and its
// cookie (last click wins), attribution on card orders (the signed webhook's cart attribute, the
// demo checkout's discount) and crypto orders (the discounted quote), self-referral refused, the
// commission's hold, its void on refund, cancellation or revocation within it and its release
// after it, and withdrawal to the reseller balance exactly once under concurrency.
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { HOLD_MS } from "~/lib/affiliates";
import { balancesOf, recordCommission } from "~/server/affiliates/ledger.server";
import { cancelOrder } from "~/server/orders/refunds.server";
import { addCodes } from "~/server/keys/stock.server";
import {
  affiliateClicks,
  affiliateLedger,
  auditLog,
  affiliates,
  cryptoOrders,
  demoCheckouts,
  productCodes,
  resellerAccounts,
  resellerLedger,
} from "~/server/platform/db/schema.server";
import { env } from "cloudflare:workers";
import {
  call,
  cookieFrom,
  createAccount,
  cryptoKeySent,
  db,
  deliver,
  nextId,
  paidOrderPayload,
  runQueue,
  signIn,
  type TestAccount,
  transactionId,
  unique,
} from "../helpers";

const MONTH = "gid://shopify/ProductVariant/4710000000002"; // Vertex Rust - 30 Days, $89.99
const FULFILMENT = "keyshop-jobs";
const REFERRAL = "__Host-referral";

interface Member {
  account: TestAccount;
  cookie: string;
}

async function member(options: Parameters<typeof createAccount>[0] = {}): Promise<Member> {
  const account = await createAccount(options);
  return { account, cookie: await signIn(account, unique("ip")) };
}

const hub = (who: Member, form: Record<string, string>) => call("/dashboard/affiliate", { form, cookie: who.cookie });
const staffAct = (who: Member, form: Record<string, string>) => call("/dashboard/affiliates", { form, cookie: who.cookie });
const affiliateRow = async (id: string) => db.select().from(affiliates).where(eq(affiliates.userId, id)).get();
const commissionsOf = (id: string) =>
  db
    .select()
    .from(affiliateLedger)
    .where(and(eq(affiliateLedger.affiliateId, id), eq(affiliateLedger.kind, "commission")))
    .all();
const voidsOf = (id: string) =>
  db
    .select()
    .from(affiliateLedger)
    .where(and(eq(affiliateLedger.affiliateId, id), eq(affiliateLedger.kind, "void")))
    .all();

const application = (code: string) => ({
  intent: "apply",
  code,
  channel: "youtube.com/@creator",
  audience: "20k Rust players",
  pitch: "I review cheats and loaders every week.",
});

let admin: Member | undefined;
async function anAdmin() {
  admin ??= await member({ admin: true });
  return admin;
}

/** A member who applied with a fresh code and was approved by an admin (default rates unless given). */
async function approvedAffiliate(rates: { commissionRate?: string; discountRate?: string } = {}) {
  const who = await member();
  const code = `Cr_${unique("").slice(-14)}`;
  expect((await hub(who, application(code))).status).toBe(200);
  const approved = await staffAct(await anAdmin(), {
    intent: "approve",
    from: "pending",
    affiliate: who.account.id,
    commissionRate: rates.commissionRate ?? "",
    discountRate: rates.discountRate ?? "",
    shopifyDiscountCode: "",
  });
  expect(approved.status).toBe(200);
  return { ...who, code };
}

/** Follows /r/<code> as a browser would, sending the cookies it holds; the referral cookie it is given, if any. */
async function follow(code: string, cookie?: string) {
  const response = await call(`/r/${code}`, { cookie });
  expect(response.status).toBe(302);
  expect(response.headers.get("Location")).toBe("/");
  expect(response.headers.get("Cache-Control")).toBe("private, no-store");
  return cookieFrom(response, REFERRAL);
}

async function postJson(path: string, body: unknown, cookie: string) {
  const { exports } = await import("cloudflare:workers");
  const response = await exports.default.fetch(
    new Request(`https://shop.test${path}`, {
      method: "POST",
      headers: { Origin: "https://shop.test", "Content-Type": "application/json", Cookie: cookie, "CF-Connecting-IP": "198.51.100.1" },
      body: JSON.stringify(body),
    }),
  );
  return {
    status: response.status,
    body: (await response.json()) as { checkoutUrl?: string; cartId?: string; message?: string; field?: string },
  };
}

const demoRow = (id: string) => db.select().from(demoCheckouts).where(eq(demoCheckouts.id, id)).get();

/** A paid card order (signed webhook) referred by `code`, for `email`, of $89.99 less 10%. */
async function referredCardOrder(code: string, email = `${unique("buyer")}@example.test`) {
  const variant = nextId();
  await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: "Vertex Rust - 30 Days" }, `LIC-${variant}`);
  const order = {
    ...paidOrderPayload({ variant, variantTitle: "30 Days", price: "89.99" }, { email }),
    total_price: "80.99",
    note_attributes: [{ name: "affiliate", value: code }],
    discount_codes: [{ code, amount: "9.00", type: "percentage" }],
  };
  await deliver("orders/paid", order);
  return order;
}

describe("applying and approval", () => {
  it("takes one application per member, with a code no one has in any case, and refuses bad input with the field's message", async () => {
    const who = await member();
    const code = `Cr_${unique("").slice(-14)}`;
    const bad = await hub(who, { ...application("no spaces allowed"), pitch: "" });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain("Use 3 to 24 letters, digits, - or _");
    expect(html).toContain("Please tell us your few words");
    expect(await affiliateRow(who.account.id)).toBeUndefined();

    expect((await hub(who, application(code))).status).toBe(200);
    expect(await affiliateRow(who.account.id)).toMatchObject({ code, status: "pending", commissionRate: 20, discountRate: 10 });
    expect((await hub(who, application(`${code}x`))).status).toBe(409);

    const other = await member();
    const taken = await hub(other, application(code.toUpperCase()));
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain("This code is taken");
    expect(await affiliateRow(other.account.id)).toBeUndefined();
  });

  it("lets only an admin decide: support may look but not approve, an approval sets the rates, and a pending code refers no one", async () => {
    const who = await member();
    const code = `Cr_${unique("").slice(-14)}`;
    await hub(who, application(code));
    expect(await follow(code)).toBeNull();

    const support = await member({ role: "support" });
    expect((await call("/dashboard/affiliates", { cookie: support.cookie })).status).toBe(200);
    expect((await staffAct(support, { intent: "approve", affiliate: who.account.id })).status).toBe(403);
    expect((await call("/dashboard/affiliates", { cookie: who.cookie })).status).toBe(403);
    expect((await affiliateRow(who.account.id))?.status).toBe("pending");

    const boss = await anAdmin();
    expect(
      (await staffAct(boss, { intent: "approve", from: "pending", affiliate: who.account.id, commissionRate: "101", discountRate: "" }))
        .status,
    ).toBe(400);
    expect(
      (
        await staffAct(boss, {
          intent: "approve",
          from: "pending",
          affiliate: who.account.id,
          commissionRate: "25",
          discountRate: "15",
          shopifyDiscountCode: "SHOPCODE",
        })
      ).status,
    ).toBe(200);
    expect(await affiliateRow(who.account.id)).toMatchObject({
      status: "approved",
      commissionRate: 25,
      discountRate: 15,
      shopifyDiscountCode: "SHOPCODE",
    });
    // Declining is for applications only.
    expect((await staffAct(boss, { intent: "decline", from: "approved", affiliate: who.account.id })).status).toBe(409);
    expect((await staffAct(boss, { intent: "pause", from: "approved", affiliate: who.account.id })).status).toBe(200);
    expect(await follow(code)).toBeNull();
  });
});

describe("two staff deciding one affiliate", () => {
  const decisionsAudited = (id: string) =>
    db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject, id), like(auditLog.action, "affiliate.%")))
      .all();

  it("one after the other: a decision made on a state another admin has already changed is refused with who changed it, and changes nothing", async () => {
    const who = await member();
    await hub(who, application(`Cr_${unique("").slice(-14)}`));
    const first = await anAdmin();
    const secondAccount = await createAccount({ admin: true });
    const second = { account: secondAccount, cookie: await signIn(secondAccount, unique("ip")) };
    // Both saw a pending application; one declines it, then the other's approval arrives.
    expect((await staffAct(first, { intent: "decline", from: "pending", affiliate: who.account.id })).status).toBe(200);
    const late = await staffAct(second, {
      intent: "approve",
      from: "pending",
      affiliate: who.account.id,
      commissionRate: "30",
      discountRate: "",
      shopifyDiscountCode: "",
    });
    expect(late.status).toBe(409);
    expect(await late.text()).toContain(`This affiliate was already declined by ${first.account.email}`);
    expect(await affiliateRow(who.account.id)).toMatchObject({ status: "declined", decidedBy: first.account.id });
    expect((await decisionsAudited(who.account.id)).map((row) => row.action)).toEqual(["affiliate.decline"]);

    // Approved later by a deliberate second look; then one pauses while the other saves new rates.
    expect(
      (
        await staffAct(second, {
          intent: "approve",
          from: "declined",
          affiliate: who.account.id,
          commissionRate: "30",
          discountRate: "",
          shopifyDiscountCode: "",
        })
      ).status,
    ).toBe(200);
    expect((await staffAct(first, { intent: "pause", from: "approved", affiliate: who.account.id })).status).toBe(200);
    const rates = await staffAct(second, {
      intent: "approve",
      from: "approved",
      affiliate: who.account.id,
      commissionRate: "50",
      discountRate: "",
      shopifyDiscountCode: "",
    });
    expect(rates.status).toBe(409);
    expect(await rates.text()).toContain(`This affiliate was already paused by ${first.account.email}`);
    expect(await affiliateRow(who.account.id)).toMatchObject({ status: "paused", commissionRate: 30 });
    expect((await decisionsAudited(who.account.id)).map((row) => row.action)).toEqual([
      "affiliate.decline",
      "affiliate.approve",
      "affiliate.pause",
    ]);
  });

  it("at the same moment: exactly one of an approval and a decline takes effect, audited once", async () => {
    const who = await member();
    await hub(who, application(`Cr_${unique("").slice(-14)}`));
    const secondAccount = await createAccount({ admin: true });
    const second = { account: secondAccount, cookie: await signIn(secondAccount, unique("ip")) };
    const [approved, declined] = await Promise.all([
      staffAct(await anAdmin(), {
        intent: "approve",
        from: "pending",
        affiliate: who.account.id,
        commissionRate: "",
        discountRate: "",
        shopifyDiscountCode: "",
      }),
      staffAct(second, { intent: "decline", from: "pending", affiliate: who.account.id }),
    ]);
    expect([approved.status, declined.status].sort()).toEqual([200, 409]);
    const row = await affiliateRow(who.account.id);
    expect(row?.status).toBe(approved.status === 200 ? "approved" : "declined");
    expect(await decisionsAudited(who.account.id)).toHaveLength(1);
  });

  it("a payout marked paid by two admins at once is paid once, with the winner's transaction", async () => {
    const creator = await approvedAffiliate({ commissionRate: "100" });
    await releasedCommission(creator, 8000);
    expect(
      (
        await hub(creator, {
          intent: "payout",
          request: requestId(),
          amount: "60.00",
          address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        })
      ).status,
    ).toBe(200);
    const [payout] = await db
      .select()
      .from(affiliateLedger)
      .where(and(eq(affiliateLedger.affiliateId, creator.account.id), eq(affiliateLedger.kind, "payout")))
      .all();
    const secondAccount = await createAccount({ admin: true });
    const second = { account: secondAccount, cookie: await signIn(secondAccount, unique("ip")) };
    const [one, two] = [transactionId(), transactionId()];
    const answers = await Promise.all([
      staffAct(await anAdmin(), { intent: "mark-paid", payout: String(payout!.id), transaction: one }),
      staffAct(second, { intent: "mark-paid", payout: String(payout!.id), transaction: two }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const paid = await db.select().from(affiliateLedger).where(eq(affiliateLedger.id, payout!.id)).get();
    expect(paid?.payoutTransaction).toBe(answers[0]!.status === 200 ? one : two);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.subject, creator.account.id), eq(auditLog.action, "affiliate.payout-paid")))
        .all(),
    ).toHaveLength(1);
    expect(await balancesOf(db, creator.account.id)).toMatchObject({ requested: 0, paidOut: 6000 });
  });
});

describe("the referral link", () => {
  it("remembers the referral for 30 days in a first-party cookie, counts the click and lands on the home page, whatever the code's case", async () => {
    const creator = await approvedAffiliate();
    const cookie = await follow(creator.code.toLowerCase());
    expect(cookie).toBe(`${REFERRAL}=${creator.code}`);
    const response = await call(`/r/${creator.code}`);
    const header = response.headers.getSetCookie().find((c) => c.startsWith(REFERRAL))!;
    expect(header).toContain(`Max-Age=${30 * 24 * 60 * 60}`);
    expect(header).toContain("HttpOnly");
    expect(await db.select().from(affiliateClicks).where(eq(affiliateClicks.affiliateId, creator.account.id)).all()).toHaveLength(2);
    expect(await follow("no-such-code")).toBeNull();
    expect(await follow("bad code!")).toBeNull();
  });

  it("leaves storefront pages the same cached bytes: they neither read nor set the cookie", async () => {
    const creator = await approvedAffiliate();
    const cookie = (await follow(creator.code))!;
    const home = await call("/", { cookie });
    expect(home.headers.get("Cache-Control")).toContain("public");
    expect(home.headers.getSetCookie()).toHaveLength(0);
    expect(await home.text()).not.toContain(creator.code);
  });

  it("lets the last click win: the newer link replaces the cookie, and the checkout carries its referral and discount", async () => {
    const first = await approvedAffiliate();
    const second = await approvedAffiliate({ discountRate: "15" });
    const buyer = await member();
    const firstCookie = await follow(first.code);
    const lastCookie = await follow(second.code, firstCookie!);
    expect(lastCookie).toBe(`${REFERRAL}=${second.code}`);

    const made = await postJson("/api/checkout", { lines: [{ merchandiseId: MONTH, quantity: 1 }] }, `${buyer.cookie}; ${lastCookie}`);
    expect(made.status).toBe(200);
    const row = await demoRow(made.body.cartId!);
    expect(JSON.parse(row!.attributes)).toEqual([{ key: "affiliate", value: second.code }]);
    expect(row).toMatchObject({ discountCode: second.code, discountPercent: 15 });
  });

  it("takes a code typed into the cart over the link, and refuses an unknown one without making a checkout", async () => {
    const linked = await approvedAffiliate();
    const typed = await approvedAffiliate();
    const buyer = await member();
    const cookie = await follow(linked.code);
    const made = await postJson(
      "/api/checkout",
      { lines: [{ merchandiseId: MONTH, quantity: 1 }], code: typed.code.toUpperCase() },
      `${buyer.cookie}; ${cookie}`,
    );
    expect(made.status).toBe(200);
    expect(JSON.parse((await demoRow(made.body.cartId!))!.attributes)).toEqual([{ key: "affiliate", value: typed.code }]);

    const unknown = await postJson(
      "/api/checkout",
      { lines: [{ merchandiseId: MONTH, quantity: 1 }], code: "NOPE-NOT-A-CODE" },
      buyer.cookie,
    );
    expect(unknown).toEqual({ status: 422, body: { message: "This code is not valid", field: "code" } });
  });
});

describe("self-referral", () => {
  it("is refused in the cart, ignored from the cookie, and earns nothing on a card order in the affiliate's e-mail", async () => {
    const creator = await approvedAffiliate();
    const own = await postJson("/api/checkout", { lines: [{ merchandiseId: MONTH, quantity: 1 }], code: creator.code }, creator.cookie);
    expect(own.status).toBe(422);

    const cookie = await follow(creator.code);
    const made = await postJson("/api/checkout", { lines: [{ merchandiseId: MONTH, quantity: 1 }] }, `${creator.cookie}; ${cookie}`);
    expect(made.status).toBe(200);
    expect(await demoRow(made.body.cartId!)).toMatchObject({ attributes: "[]", discountCode: null });

    // The card buyer's e-mail is the affiliate's, whatever its case: no commission.
    await referredCardOrder(creator.code, creator.account.email.toUpperCase());
    expect(await commissionsOf(creator.account.id)).toHaveLength(0);
  });
});

describe("commission on card orders", () => {
  it("records the affiliate's share of what was paid, from the signed webhook's cart attribute, once however often it is delivered", async () => {
    const creator = await approvedAffiliate();
    const before = Date.now();
    const order = await referredCardOrder(creator.code);
    await deliver("orders/paid", order);
    const rows = await commissionsOf(creator.account.id);
    expect(rows).toHaveLength(1);
    // 20% of $80.99, in whole cents, rounded down.
    expect(rows[0]).toMatchObject({ orderKey: `shopify:${order.id}`, orderCents: 8099, amountCents: 1619, buyerEmail: order.email });
    expect(rows[0]!.availableAt).toBeGreaterThanOrEqual(before + HOLD_MS);
    expect(await balancesOf(db, creator.account.id)).toMatchObject({ pending: 1619, available: 0 });
  });

  it("honours the referral and the discount through the demo checkout, and earns on what was actually paid", async () => {
    const creator = await approvedAffiliate();
    const buyer = await member();
    await addCodes(db, { id: MONTH, title: "Vertex Rust - 30 Days" }, `AFF-${unique("k").toUpperCase()}`);
    const cookie = await follow(creator.code);
    const made = await postJson("/api/checkout", { lines: [{ merchandiseId: MONTH, quantity: 1 }] }, `${buyer.cookie}; ${cookie}`);
    const page = await call(`/checkout/demo/${made.body.cartId}`, { cookie: buyer.cookie });
    const html = await page.text();
    expect(html).toContain("(10% off)");
    expect(html).toContain("Pay USD 80.99");
    expect((await call(`/checkout/demo/${made.body.cartId}`, { form: { email: buyer.account.email }, cookie: buyer.cookie })).status).toBe(
      200,
    );
    await vi.waitFor(async () => expect(await commissionsOf(creator.account.id)).toHaveLength(1), { timeout: 15_000, interval: 50 });
    expect((await commissionsOf(creator.account.id))[0]).toMatchObject({ orderCents: 8099, amountCents: 1619 });
  });

  it("earns nothing for a paused affiliate's code or an order in another currency", async () => {
    const paused = await approvedAffiliate();
    expect((await staffAct(await anAdmin(), { intent: "pause", from: "approved", affiliate: paused.account.id })).status).toBe(200);
    await referredCardOrder(paused.code);
    expect(await commissionsOf(paused.account.id)).toHaveLength(0);

    const creator = await approvedAffiliate();
    const variant = nextId();
    await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: "Vertex Rust - 30 Days" }, `LIC-${variant}`);
    await deliver("orders/paid", {
      ...paidOrderPayload({ variant, variantTitle: "30 Days", price: "80.00" }),
      currency: "EUR",
      note_attributes: [{ name: "affiliate", value: creator.code }],
    });
    expect(await commissionsOf(creator.account.id)).toHaveLength(0);
  });
});

const STUB = env.CRYPTO_BTC_EXPLORER_URL.replace(/\/btc$/, "");
async function chain(path: string, body: object) {
  const response = await fetch(`${STUB}/_control/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`stub ${path}: ${response.status}`);
}
const orderRow = async (orderNumber: string) =>
  (await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get())!;
async function sweep(orderNumber: string) {
  await db.update(cryptoOrders).set({ checkedAt: null }).where(eq(cryptoOrders.orderNumber, orderNumber));
  await runQueue(FULFILMENT, [{ kind: "chain-check", orderNumbers: [orderNumber] }]);
}

describe("commission on crypto orders", () => {
  it("quotes the referred buyer the discounted price and earns the affiliate's share once the order is paid", async () => {
    const creator = await approvedAffiliate();
    const buyer = await member();
    await addCodes(db, { id: MONTH, title: "Vertex Rust - 30 Days" }, `AFF-${unique("k").toUpperCase()}`);
    const cookie = await follow(creator.code);
    const opened = await call("/api/crypto-orders", { form: { variantId: MONTH, coin: "BTC" }, cookie: `${buyer.cookie}; ${cookie}` });
    expect(opened.status).toBe(200);
    const { order } = (await opened.json()) as { order: { orderNumber: string; amountCents: number } };
    expect(order.amountCents).toBe(8099);
    const row = await orderRow(order.orderNumber);
    expect(row.referredBy).toBe(creator.account.id);

    await chain("pay", { net: "btc", address: row.walletAddress, units: row.amountUnits });
    await chain("mine", { net: "btc", address: row.walletAddress, blocks: 1 });
    await sweep(order.orderNumber);
    await cryptoKeySent(row.id);
    const rows = await commissionsOf(creator.account.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ orderKey: `crypto:${order.orderNumber}`, orderCents: 8099, amountCents: 1619 });
  });

  it("quotes the affiliate their own full price through their own link", async () => {
    const creator = await approvedAffiliate();
    const cookie = await follow(creator.code);
    const opened = await call("/api/crypto-orders", { form: { variantId: MONTH, coin: "BTC" }, cookie: `${creator.cookie}; ${cookie}` });
    const { order } = (await opened.json()) as { order: { orderNumber: string; amountCents: number } };
    expect(order.amountCents).toBe(8999);
    expect((await orderRow(order.orderNumber)).referredBy).toBeNull();
  });
});

describe("the hold", () => {
  it("voids a held commission when the order is refunded, once however often the refund arrives", async () => {
    const creator = await approvedAffiliate();
    const order = await referredCardOrder(creator.code);
    const refund = { id: nextId(), order_id: order.id, refund_line_items: [{ line_item_id: order.line_items[0]!.id, quantity: 1 }] };
    await deliver("refunds/create", refund);
    await deliver("refunds/create", refund);
    expect(await voidsOf(creator.account.id)).toHaveLength(1);
    expect(await balancesOf(db, creator.account.id)).toMatchObject({ pending: 0, available: 0 });
    // Voided money never becomes available, either.
    expect(await balancesOf(db, creator.account.id, Date.now() + HOLD_MS + 60_000)).toMatchObject({ pending: 0, available: 0 });
  });

  it("voids only the refunded units' share when part of the order is refunded, and the rest with the rest", async () => {
    const creator = await approvedAffiliate();
    const variant = nextId();
    await addCodes(
      db,
      { id: `gid://shopify/ProductVariant/${variant}`, title: "Vertex Rust - 30 Days" },
      `LIC-${variant}-A\nLIC-${variant}-B`,
    );
    const paid = paidOrderPayload({ variant, variantTitle: "30 Days", price: "89.99", quantity: 2 });
    const order = {
      ...paid,
      total_price: "161.98",
      note_attributes: [{ name: "affiliate", value: creator.code }],
      discount_codes: [{ code: creator.code, amount: "18.00", type: "percentage" }],
    };
    await deliver("orders/paid", order);
    const [commission] = await commissionsOf(creator.account.id);
    expect(commission).toMatchObject({ orderCents: 16198, amountCents: 3239 });
    const line = order.line_items[0]!.id;

    // One of the two units: half the commission goes, once however often the refund arrives.
    const first = { id: nextId(), order_id: order.id, refund_line_items: [{ line_item_id: line, quantity: 1 }] };
    await deliver("refunds/create", first);
    await deliver("refunds/create", first);
    expect((await voidsOf(creator.account.id)).map((v) => v.amountCents)).toEqual([-1620]);
    expect(await balancesOf(db, creator.account.id)).toMatchObject({ pending: 1619, available: 0 });
    expect(await balancesOf(db, creator.account.id, Date.now() + HOLD_MS + 60_000)).toMatchObject({ pending: 0, available: 1619 });

    // The other unit: the rest, and never more than the commission.
    await deliver("refunds/create", { id: nextId(), order_id: order.id, refund_line_items: [{ line_item_id: line, quantity: 1 }] });
    expect((await voidsOf(creator.account.id)).map((v) => v.amountCents)).toEqual([-1620, -1619]);
    expect(await balancesOf(db, creator.account.id, Date.now() + HOLD_MS + 60_000)).toMatchObject({ pending: 0, available: 0 });
    await cancelOrder(db, String(order.id));
    expect(await voidsOf(creator.account.id)).toHaveLength(2);
  });

  it("voids it when the order is cancelled, or its key revoked by staff, within the hold", async () => {
    const cancelled = await approvedAffiliate();
    const order = await referredCardOrder(cancelled.code);
    await deliver("orders/cancelled", {
      ...order,
      cancelled_at: new Date().toISOString(),
      updated_at: new Date(Date.now() + 1000).toISOString(),
    });
    expect(await voidsOf(cancelled.account.id)).toHaveLength(1);

    const revoked = await approvedAffiliate();
    const sold = await referredCardOrder(revoked.code);
    const code = await db
      .select({ id: productCodes.id })
      .from(productCodes)
      .where(eq(productCodes.code, `LIC-${sold.line_items[0]!.variant_id}`))
      .get();
    const response = await call(`/dashboard/orders/shopify/${sold.id}`, {
      form: { intent: "revoke", key: `c${code!.id}`, reason: "Chargeback" },
      cookie: (await anAdmin()).cookie,
    });
    expect(response.status).toBe(200);
    expect(await voidsOf(revoked.account.id)).toHaveLength(1);
  });

  it("releases the commission after the hold, and a cancellation after it voids nothing", async () => {
    const creator = await approvedAffiliate();
    const order = await referredCardOrder(creator.code);
    const later = Date.now() + HOLD_MS + 60_000;
    expect(await balancesOf(db, creator.account.id, later)).toMatchObject({ pending: 0, available: 1619 });
    await cancelOrder(db, String(order.id), later);
    expect(await voidsOf(creator.account.id)).toHaveLength(0);
    expect(await balancesOf(db, creator.account.id, later)).toMatchObject({ available: 1619 });
  });
});

/** A commission paid long enough ago that its hold is over. */
async function releasedCommission(creator: { account: TestAccount; code: string }, cents = 8099) {
  const recorded = await recordCommission(
    db,
    { code: creator.code },
    {
      orderKey: `shopify:${nextId()}`,
      paidCents: cents,
      currency: "USD",
      buyer: { email: `${unique("buyer")}@example.test` },
      paidAt: Date.now() - HOLD_MS - 60_000,
    },
  );
  expect(recorded).toBe(true);
}

const requestId = () => crypto.randomUUID();

describe("getting paid", () => {
  it("withdraws nothing while the commission is held, and all of it once the hold is over", async () => {
    const creator = await approvedAffiliate();
    await referredCardOrder(creator.code);
    const held = await hub(creator, { intent: "withdraw", request: requestId() });
    expect(held.status).toBe(409);
    expect(await held.text()).toContain("No commission is available to withdraw yet");
    await releasedCommission(creator);
    expect((await hub(creator, { intent: "withdraw", request: requestId() })).status).toBe(200);
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, creator.account.id)).get())?.balanceCents).toBe(
      1619,
    );
    expect(await balancesOf(db, creator.account.id)).toMatchObject({ pending: 1619, available: 0, paidOut: 1619 });
  });

  it("moves the money once when several withdrawals are sent at the same moment", async () => {
    const creator = await approvedAffiliate();
    await releasedCommission(creator);
    const answers = await Promise.all(Array.from({ length: 5 }, () => hub(creator, { intent: "withdraw", request: requestId() })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(4);
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, creator.account.id)).get())?.balanceCents).toBe(
      1619,
    );
    expect(
      await db
        .select()
        .from(resellerLedger)
        .where(and(eq(resellerLedger.userId, creator.account.id), eq(resellerLedger.kind, "commission")))
        .all(),
    ).toHaveLength(1);
    expect(await balancesOf(db, creator.account.id)).toMatchObject({ available: 0, paidOut: 1619 });
  });

  it("lets the test clock (development and tests only) move a member's time past the hold", async () => {
    const creator = await approvedAffiliate();
    await referredCardOrder(creator.code);
    const clock = cookieFrom(await call("/dev/clock", { form: { days: "31" } }), "__Host-test-clock");
    expect(clock).toBe("__Host-test-clock=31");
    expect((await call("/dev/clock", { form: { days: "-1" } })).status).toBe(400);
    expect(
      (await call("/dashboard/affiliate", { form: { intent: "withdraw", request: requestId() }, cookie: `${creator.cookie}; ${clock}` }))
        .status,
    ).toBe(200);
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, creator.account.id)).get())?.balanceCents).toBe(
      1619,
    );
  });

  it("sends the same withdrawal form once, and refuses a member who is not an affiliate", async () => {
    const creator = await approvedAffiliate();
    await releasedCommission(creator);
    const request = requestId();
    expect((await hub(creator, { intent: "withdraw", request })).status).toBe(200);
    await releasedCommission(creator);
    expect((await hub(creator, { intent: "withdraw", request })).status).toBe(409);
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, creator.account.id)).get())?.balanceCents).toBe(
      1619,
    );
    expect((await hub(await member(), { intent: "withdraw", request: requestId() })).status).toBe(404);
  });

  it("takes a crypto payout request above the minimum and within what is available; staff mark it paid with its transaction", async () => {
    const creator = await approvedAffiliate({ commissionRate: "100" });
    await releasedCommission(creator, 8000);
    const address = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
    expect((await hub(creator, { intent: "payout", request: requestId(), amount: "10.00", address })).status).toBe(400);
    expect((await hub(creator, { intent: "payout", request: requestId(), amount: "90.00", address })).status).toBe(409);
    expect((await hub(creator, { intent: "payout", request: requestId(), amount: "60.00", address })).status).toBe(200);
    expect(await balancesOf(db, creator.account.id)).toMatchObject({ available: 2000, requested: 6000, paidOut: 0 });

    const [payout] = await db
      .select()
      .from(affiliateLedger)
      .where(and(eq(affiliateLedger.affiliateId, creator.account.id), eq(affiliateLedger.kind, "payout")))
      .all();
    const support = await member({ role: "support" });
    const tx = transactionId();
    expect((await staffAct(support, { intent: "mark-paid", payout: String(payout!.id), transaction: tx })).status).toBe(403);
    expect((await staffAct(await anAdmin(), { intent: "mark-paid", payout: String(payout!.id), transaction: tx })).status).toBe(200);
    expect((await staffAct(await anAdmin(), { intent: "mark-paid", payout: String(payout!.id), transaction: tx })).status).toBe(409);
    expect(await balancesOf(db, creator.account.id)).toMatchObject({ available: 2000, requested: 0, paidOut: 6000 });
  });
});
