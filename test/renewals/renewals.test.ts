// Renewals that keep the key (decision 090): a payment that names a licence extends that licence,
// on the card path (a signed order webhook whose cart carried the licence), the crypto path (an
// order opened from the hub for the licence) and the balance path; one that names someone else's,
// a revoked licence or another product's is an ordinary purchase with the reason on the order; a
// refund takes back exactly the time it added; an upgrade costs the new plan less the unused time.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ANSWER_REASON } from "~/lib/fraud";
import {
  auditLog,
  cryptoOrders,
  licences,
  mailOutbox,
  productCodes,
  resellerAccounts,
  userSubscriptions,
} from "~/server/platform/db/schema.server";
import {
  balanceOf,
  boughtKey,
  call,
  createAccount,
  db,
  deliver,
  hwid,
  latestMail,
  nextId,
  ORIGIN,
  paidOrderPayload,
  runQueue,
  signIn,
  unique,
  validate,
} from "../helpers";
import worker from "../../workers/app";

const DAY = 24 * 60 * 60_000;
const WEEK = 7 * DAY;
const FULFILMENT = "keyshop-jobs";
/** The cart attribute a renewal's checkout sets, as the paid order's webhook repeats it. */
const RENEWS = "_renews_licence";

const licenceOf = async (key: string) => (await db.select().from(licences).where(eq(licences.key, key)).get())!;
const check = async (key: string, pc: string) => (await validate({ key, hwid: pc, nonce: crypto.randomUUID() })).json;
const codesOf = (orderId: number | string) =>
  db
    .select()
    .from(productCodes)
    .where(eq(productCodes.orderId, String(orderId)))
    .all();

/** A signed-in member holding a weekly Vertex Rust key, bound to their PC by its first check. */
async function memberWithWeeklyLicence() {
  const account = await createAccount();
  const cookie = await signIn(account, unique("ip"));
  const bought = await boughtKey("1 Week", account.email);
  const pc = hwid();
  expect((await check(bought.key, pc)).code).toBe("VALID");
  return { account, cookie, pc, ...bought, licence: await licenceOf(bought.key) };
}

/** Moves the licence's end, as time passing would (its clock started `ago` before its new end). */
const endsAt = (licenceId: number, expiresAt: number) => db.update(licences).set({ expiresAt }).where(eq(licences.id, licenceId));

/** A paid card order of one unit of the weekly plan whose cart named `licenceId`, as Shopify's webhook carries it. */
function renewalOrder(licenceId: number | string, email: string, line: { variantTitle?: string; title?: string; price?: string } = {}) {
  const stockedVariant = nextId();
  return {
    ...paidOrderPayload(
      {
        variant: stockedVariant,
        variantTitle: line.variantTitle ?? "1 Week",
        title: line.title ?? "Vertex Rust",
        price: line.price ?? "29.99",
      },
      { email },
    ),
    note_attributes: [{ name: RENEWS, value: String(licenceId) }],
  };
}

/** Stock for the variant a renewal order names, so a refused renewal can still get its key. */
async function stockFor(order: { line_items: { variant_id: number; variant_title: string; title: string }[] }) {
  const line = order.line_items[0]!;
  const code = `FALLBACK-${unique("k").toUpperCase()}`;
  await db.insert(productCodes).values({
    variantId: `gid://shopify/ProductVariant/${line.variant_id}`,
    variantTitle: `${line.title} - ${line.variant_title}`,
    code,
    createdAt: 0,
  });
  return code;
}

const refusals = (subject: string) =>
  db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.subject, subject), eq(auditLog.action, "renewal.refused")))
    .all();

describe("a card payment naming a licence", () => {
  it("extends a running licence from its expiry: same key, same PC, no new key, and says so by e-mail", async () => {
    const { account, licence, key, pc, cookie } = await memberWithWeeklyLicence();
    const before = licence.expiresAt!;
    const order = renewalOrder(licence.id, account.email);
    await stockFor(order);
    await deliver("orders/paid", order);

    const after = await licenceOf(key);
    expect(after.expiresAt).toBe(before + WEEK);
    expect(after).toMatchObject({ hwid: pc, plan: "weekly", revokedAt: null, id: licence.id });
    // No key left stock for it.
    expect(await codesOf(order.id)).toHaveLength(0);
    // The program on the same PC, with the same key, now reads the new expiry.
    const answer = await check(key, pc);
    expect(answer).toMatchObject({ code: "VALID", licence: { expiresAt: new Date(before + WEEK).toISOString() } });
    // ...and where its owner renews it again, signed by the shop.
    expect(answer.licence.renewUrl).toMatch(
      new RegExp(`^${ORIGIN}/dashboard/renew/${licence.id}\\?plan=weekly&expires=\\d+&signature=[\\w-]+$`),
    );
    // One subscription, carrying the new expiry: no second "past subscription" in the hub.
    const subscriptions = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).all();
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]).toMatchObject({ expiryDate: before + WEEK, status: "active" });
    const mail = await latestMail(account.email, "extended until");
    expect(mail?.textBody).toContain("Same key, same PC");
    // The same webhook again (Shopify retries, several topics per order) extends nothing more.
    await deliver("orders/updated", { ...order, updated_at: new Date(Date.now() + 1000).toISOString() });
    expect((await licenceOf(key)).expiresAt).toBe(before + WEEK);
    expect(await (await call("/dashboard/subscriptions", { cookie })).text()).toContain("Renew or upgrade");
  });

  it("extends an ended licence from the payment, and it answers VALID again on the same PC", async () => {
    const { account, licence, key, pc } = await memberWithWeeklyLicence();
    await endsAt(licence.id, Date.now() - 3 * DAY);
    expect((await check(key, pc)).code).toBe("EXPIRED");
    const paidFrom = Date.now();
    await deliver("orders/paid", renewalOrder(licence.id, account.email));
    const after = (await licenceOf(key)).expiresAt!;
    expect(after).toBeGreaterThanOrEqual(paidFrom + WEEK);
    expect(after).toBeLessThanOrEqual(Date.now() + WEEK);
    expect((await check(key, pc)).code).toBe("VALID");
    const [subscription] = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).all();
    expect(subscription).toMatchObject({ status: "active", expiryDate: after });
  });

  it("naming someone else's licence gives the payer a new key, and the order says why", async () => {
    const { licence, key } = await memberWithWeeklyLicence();
    const stranger = await createAccount();
    const order = renewalOrder(licence.id, stranger.email);
    const fallback = await stockFor(order);
    await deliver("orders/paid", order);
    expect((await licenceOf(key)).expiresAt).toBe(licence.expiresAt);
    expect((await codesOf(order.id)).map((c) => c.code)).toEqual([fallback]);
    expect((await refusals(`shopify:${order.id}`))[0]?.detail).toContain("not the payer's");
  });

  it("naming a revoked licence, or with a plan of another product, gives a new key, with the reason on the order", async () => {
    const { account, licence, key, order: first } = await memberWithWeeklyLicence();
    // The licence's own order refunded: its key is revoked.
    await deliver("refunds/create", {
      id: nextId(),
      order_id: first.id,
      refund_line_items: [{ line_item_id: first.line_items[0]!.id, quantity: 1 }],
    });
    expect((await licenceOf(key)).revokedAt).not.toBeNull();
    const revoked = renewalOrder(licence.id, account.email);
    const fallback = await stockFor(revoked);
    await deliver("orders/paid", revoked);
    expect((await codesOf(revoked.id)).map((c) => c.code)).toEqual([fallback]);
    expect((await refusals(`shopify:${revoked.id}`))[0]?.detail).toContain("revoked or refunded");

    const other = await memberWithWeeklyLicence();
    const spoofer = renewalOrder(other.licence.id, other.account.email, { title: "Vertex HWID Spoofer" });
    await stockFor(spoofer);
    await deliver("orders/paid", spoofer);
    expect((await licenceOf(other.key)).expiresAt).toBe(other.licence.expiresAt);
    expect(await codesOf(spoofer.id)).toHaveLength(1);
    expect((await refusals(`shopify:${spoofer.id}`))[0]?.detail).toContain("another product");
  });
});

describe("renewals and payment disputes", () => {
  /** A dispute body as Shopify's disputes/create and disputes/update webhooks carry it. */
  const disputeOf = (orderId: number | string, status: string, id: number) => ({
    id,
    order_id: Number(orderId),
    type: "chargeback",
    amount: "9.99",
    currency: "USD",
    reason: "fraudulent",
    status,
    evidence_due_by: "2030-01-15T19:00:00-05:00",
    finalized_on: status === "lost" ? "2030-01-20T10:00:00-05:00" : null,
    initiated_at: "2029-12-31T19:00:00-05:00",
  });

  it("a payment naming a licence suspended by an open dispute gives a new key, with the reason on the order", async () => {
    const { account, licence, key, order: first } = await memberWithWeeklyLicence();
    await deliver("disputes/create", disputeOf(first.id, "needs_response", nextId()));
    expect((await licenceOf(key)).suspendedAt).not.toBeNull();
    const order = renewalOrder(licence.id, account.email);
    const fallback = await stockFor(order);
    await deliver("orders/paid", order);
    expect((await licenceOf(key)).expiresAt).toBe(licence.expiresAt);
    expect((await codesOf(order.id)).map((c) => c.code)).toEqual([fallback]);
    expect((await refusals(`shopify:${order.id}`))[0]?.detail).toContain("suspended");
  });

  it("an open dispute of a renewal suspends the licence it extended, and a won one gives it back with its time", async () => {
    const { account, licence, key, pc } = await memberWithWeeklyLicence();
    const order = renewalOrder(licence.id, account.email);
    await deliver("orders/paid", order);
    const id = nextId();
    await deliver("disputes/create", disputeOf(order.id, "needs_response", id));
    expect(await check(key, pc)).toMatchObject({ code: "SUSPENDED", reason: ANSWER_REASON.dispute });
    // The evidence for Shopify shows the renewed key's use, as it would a key the order sold.
    const staff = await signIn(await createAccount({ role: "support" }), unique("ip"));
    const evidence = await (await call(`/dashboard/disputes/${id}/evidence.txt`, { cookie: staff })).text();
    expect(evidence).toMatch(/First activated: \w{3} \d{2}, \d{4}/);
    await deliver("disputes/update", disputeOf(order.id, "won", id));
    expect((await check(key, pc)).code).toBe("VALID");
    expect((await licenceOf(key)).expiresAt).toBe(licence.expiresAt! + WEEK);
  });

  it("a lost dispute of a renewal takes back the time it added, as a refund does, and leaves the key working", async () => {
    const { account, licence, key, pc } = await memberWithWeeklyLicence();
    const before = licence.expiresAt!;
    const order = renewalOrder(licence.id, account.email);
    await deliver("orders/paid", order);
    expect((await licenceOf(key)).expiresAt).toBe(before + WEEK);
    const id = nextId();
    await deliver("disputes/create", disputeOf(order.id, "needs_response", id));
    expect((await check(key, pc)).code).toBe("SUSPENDED");
    await deliver("disputes/update", disputeOf(order.id, "lost", id));
    const after = await licenceOf(key);
    expect(after.expiresAt).toBe(before);
    expect(after.revokedAt).toBeNull();
    expect((await check(key, pc)).code).toBe("VALID");
  });
});

describe("a refund of a renewal", () => {
  it("takes back exactly the time it added; one with less time left than it added ends now", async () => {
    const { account, licence, key, pc } = await memberWithWeeklyLicence();
    const before = licence.expiresAt!;
    const order = renewalOrder(licence.id, account.email);
    await deliver("orders/paid", order);
    expect((await licenceOf(key)).expiresAt).toBe(before + WEEK);
    const refund = { id: nextId(), order_id: order.id, refund_line_items: [{ line_item_id: order.line_items[0]!.id, quantity: 1 }] };
    await deliver("refunds/create", refund);
    expect((await licenceOf(key)).expiresAt).toBe(before);
    // The key itself was never revoked: it still works until its own end.
    expect((await check(key, pc)).code).toBe("VALID");
    expect((await latestMail(account.email, "renewal was refunded"))?.textBody).toContain("taken back");
    // The same refund again takes nothing more.
    await deliver("refunds/create", refund);
    expect((await licenceOf(key)).expiresAt).toBe(before);

    // Renewed after it had ended, then used up but for an hour: the refund ends it now, never earlier.
    const ended = await memberWithWeeklyLicence();
    await endsAt(ended.licence.id, Date.now() - DAY);
    const late = renewalOrder(ended.licence.id, ended.account.email);
    await deliver("orders/paid", late);
    await endsAt(ended.licence.id, Date.now() + 60 * 60_000);
    const refundedAt = Date.now();
    await deliver("refunds/create", {
      id: nextId(),
      order_id: late.id,
      refund_line_items: [{ line_item_id: late.line_items[0]!.id, quantity: 1 }],
    });
    const now = (await licenceOf(ended.key)).expiresAt!;
    expect(now).toBeGreaterThanOrEqual(refundedAt);
    expect(now).toBeLessThanOrEqual(Date.now());
    expect((await check(ended.key, ended.pc)).code).toBe("EXPIRED");
  });
});

const MONTH_VARIANT = "gid://shopify/ProductVariant/4710000000002";
const renewPage = (licenceId: number) => `/dashboard/renew/${licenceId}`;

describe("the crypto path", () => {
  it("opens an order for the licence at the plan's price, and once paid extends the licence instead of handing out a key", async () => {
    const { account, licence, key, cookie } = await memberWithWeeklyLicence();
    const before = licence.expiresAt!;
    const response = await call(renewPage(licence.id), { form: { intent: "crypto", plan: "weekly", coin: "BTC" }, cookie });
    expect(response.status).toBe(302);
    const orderNumber = new URL(response.headers.get("Location")!, ORIGIN).searchParams.get("order")!;
    const order = (await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get())!;
    expect(order).toMatchObject({ renewsLicenceId: licence.id, amountCents: 2999, variantTitle: "1 Week", purpose: "key" });
    // Paid (as the chain watcher finds it), then settled by the queue, twice.
    await db.update(cryptoOrders).set({ status: "processing", paidAt: Date.now() }).where(eq(cryptoOrders.orderNumber, orderNumber));
    const job = { kind: "crypto-order", orderNumber, code: null };
    await runQueue(FULFILMENT, [job, job]);
    expect((await licenceOf(key)).expiresAt).toBe(before + WEEK);
    expect(await codesOf(orderNumber)).toHaveLength(0);
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get())?.status).toBe("complete");
    const mails = await db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, account.email)).all();
    expect(mails.filter((m) => m.subject.includes("extended until"))).toHaveLength(1);
  });

  it("quotes an upgrade lower: the new plan less the unused whole days of the current one", async () => {
    const { licence, cookie } = await memberWithWeeklyLicence();
    // Three days and a half left of seven: three whole days are credited.
    await endsAt(licence.id, Date.now() + 3.5 * DAY);
    const response = await call(renewPage(licence.id), { form: { intent: "crypto", plan: "monthly", coin: "BTC" }, cookie });
    const orderNumber = new URL(response.headers.get("Location")!, ORIGIN).searchParams.get("order")!;
    const order = (await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get())!;
    // $89.99 - round($29.99 × 3/7 = $12.85) = $77.14
    expect(order).toMatchObject({ amountCents: 7714, variantId: MONTH_VARIANT, renewsLicenceId: licence.id });
  });
});

describe("the upgrade's arithmetic, stated on the page before payment", () => {
  const priceOnPage = async (licenceId: number, cookie: string, plan: string) => {
    const html = (await (await call(renewPage(licenceId), { cookie })).text()).replaceAll("<!-- -->", "");
    const section = html.slice(html.indexOf(`Price of the upgrade to ${plan}`));
    return /You pay<\/dt><dd[^>]*>([^<]+)</.exec(section)?.[1];
  };

  it("credits one day of a weekly licence with one day left, and nothing of one already past its expiry", async () => {
    const { licence, cookie } = await memberWithWeeklyLicence();
    await endsAt(licence.id, Date.now() + DAY + 60_000);
    // $89.99 - round($29.99 / 7 = $4.28) = $85.71; lifetime $249.99 - $4.28 = $245.71
    expect(await priceOnPage(licence.id, cookie, "Monthly")).toBe("$85.71");
    expect(await priceOnPage(licence.id, cookie, "Lifetime")).toBe("$245.71");
    await endsAt(licence.id, Date.now() - DAY);
    expect(await priceOnPage(licence.id, cookie, "Monthly")).toBe("$89.99");
  });

  it("is what the upgrade charges on the card path, and the paid upgrade moves the same key to the new plan", async () => {
    const { account, licence, key, pc, cookie } = await memberWithWeeklyLicence();
    await endsAt(licence.id, Date.now() + DAY + 60_000);
    // The demo checkout stands in for Shopify's draft order: the line less the credit.
    const response = await call(renewPage(licence.id), { form: { intent: "card", plan: "monthly" }, cookie });
    expect(response.status).toBe(302);
    const checkout = new URL(response.headers.get("Location")!).pathname;
    const page = (await (await call(checkout, { cookie })).text()).replaceAll("<!-- -->", "");
    expect(page).toContain("Unused time of your Weekly plan (1 of 7 days)");
    expect(page).toContain("USD 85.71");
    const paid = await call(checkout, { form: { email: account.email }, cookie });
    expect(paid.status).toBe(200);
    await expect.poll(async () => (await licenceOf(key)).plan, { timeout: 15_000 }).toBe("monthly");
    const upgraded = await licenceOf(key);
    expect(upgraded.expiresAt).toBeGreaterThan(Date.now() + 29 * DAY);
    expect(upgraded.entitlements).toEqual(expect.arrayContaining(["beta"]));
    expect(await check(key, pc)).toMatchObject({ code: "VALID", licence: { plan: "monthly" } });
  });
});

describe("an upgrade by card with a Shopify store", () => {
  /** The Worker as a shop with a Shopify store (the simulated one) answers, with or without its Admin API token. */
  const asShopifyShop = (request: Request, admin: { url: string; token: string }) =>
    worker.fetch(
      request as Request<unknown, IncomingRequestCfProperties>,
      {
        ...env,
        SHOPIFY_STOREFRONT_URL: `${env.SHOPIFY_STUB_URL}/ok`,
        SHOPIFY_STOREFRONT_TOKEN: "stub-token",
        SHOPIFY_ADMIN_URL: admin.url,
        SHOPIFY_ADMIN_TOKEN: admin.token,
      },
      createExecutionContext(),
    );
  const upgradeRequest = (licenceId: number, cookie: string) =>
    new Request(`${ORIGIN}${renewPage(licenceId)}`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": "198.51.100.1" },
      body: new URLSearchParams({ intent: "card", plan: "monthly" }),
    });

  it("checks out through a draft order at the quote, naming the licence; without the Admin API token it says why", async () => {
    const { account, licence, cookie } = await memberWithWeeklyLicence();
    await endsAt(licence.id, Date.now() + DAY + 60_000);
    const behaviour = `admin-${crypto.randomUUID()}`;
    const response = await asShopifyShop(upgradeRequest(licence.id, cookie), {
      url: `${env.SHOPIFY_STUB_URL}/${behaviour}`,
      token: "stub-admin-token",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toMatch(/^https:\/\/shop\.example\/invoices\/draft-\d+$/);
    const { last } = (await (await fetch(`${env.SHOPIFY_STUB_URL}/hits/${behaviour}`)).json()) as {
      last: { variables: { input: Record<string, unknown> } };
    };
    expect(last.variables.input).toMatchObject({
      email: account.email,
      customAttributes: [{ key: RENEWS, value: String(licence.id) }],
      lineItems: [{ variantId: MONTH_VARIANT, quantity: 1, appliedDiscount: { value: 4.28, valueType: "FIXED_AMOUNT" } }],
    });

    const refused = await asShopifyShop(upgradeRequest(licence.id, cookie), { url: "", token: "" });
    expect(refused.status).toBe(503);
    expect(await refused.text()).toContain("Shopify Admin API token is not set");
  });
});

describe("the balance path", () => {
  it("renews from the reseller balance once per request, and refuses when the balance falls short", async () => {
    const { account, licence, key, cookie } = await memberWithWeeklyLicence();
    const before = licence.expiresAt!;
    const request = crypto.randomUUID();
    const pay = () => call(renewPage(licence.id), { form: { intent: "balance", plan: "weekly", request }, cookie });
    // The panel opens the account; an admin's credit fills it.
    await call("/dashboard/resell", { cookie });
    const short = await pay();
    expect(short.status).toBe(409);
    expect(await short.text()).toContain("Insufficient balance");
    expect((await licenceOf(key)).expiresAt).toBe(before);

    await db.update(resellerAccounts).set({ balanceCents: 5000 }).where(eq(resellerAccounts.userId, account.id));
    expect((await pay()).status).toBe(200);
    expect((await pay()).status).toBe(200);
    expect((await licenceOf(key)).expiresAt).toBe(before + WEEK);
    expect(await balanceOf(account.id)).toMatchObject({ cents: 5000 - 2999, purchases: [{ amountCents: -2999 }] });
  });

  it("lets a reseller extend a key they sold, at their price, from their balance", async () => {
    const reseller = await createAccount();
    const cookie = await signIn(reseller, unique("ip"));
    await call("/dashboard/resell", { cookie });
    await db.update(resellerAccounts).set({ balanceCents: 20_000 }).where(eq(resellerAccounts.userId, reseller.id));
    const generated = await call("/dashboard/resell", { form: { intent: "generate", quantity: "5", keyType: "weekly" }, cookie });
    expect(generated.status).toBe(200);
    const sold = (await db.select().from(licences).where(eq(licences.ownerEmail, reseller.email)).all())[0]!;
    const pc = hwid();
    expect((await check(sold.key, pc)).code).toBe("VALID");
    const bound = await licenceOf(sold.key);
    const balance = (await balanceOf(reseller.id)).cents!;
    const extended = await call("/dashboard/resell", {
      form: { intent: "extend", licenceId: String(bound.id), request: crypto.randomUUID() },
      cookie,
    });
    expect(extended.status).toBe(200);
    expect((await licenceOf(sold.key)).expiresAt).toBe(bound.expiresAt! + WEEK);
    // $29.99 less the reseller's 50 %.
    expect((await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, reseller.id)).get())?.balanceCents).toBe(
      balance - 1500,
    );
  });
});
