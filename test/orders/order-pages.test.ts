import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addCodes } from "~/server/keys/stock.server";
import {
  auditLog,
  cryptoOrders,
  licences,
  mailOutbox,
  manualOrders,
  productCodes,
  resellerAccounts,
  resellerLedger,
  resellerKeys,
  shopifyOrders,
  userSubscriptions,
} from "~/server/platform/db/schema.server";
import {
  boughtKey,
  call,
  createAccount,
  cryptoOrder,
  db,
  deliver,
  hwid,
  nextId,
  quietDay,
  signIn,
  transactionId,
  unique,
  validate,
} from "../helpers";

const VARIANT = "gid://shopify/ProductVariant/4710000000004"; // Vertex HWID Spoofer - 30 Days (demo catalogue)
const VARIANT_TITLE = "Vertex HWID Spoofer - 30 Days";

const staff = async (role: "admin" | "support") => signIn(await createAccount({ role }), unique("ip"));
const member = async () => signIn(await createAccount(), unique("ip"));

const html = async (response: Response) => (await response.text()).replace(/<!-- -->/g, "");

/** The order links of a list page, in the order shown. */
function orderLinks(page: string): string[] {
  return [
    ...new Set(
      [...page.matchAll(/href="\/dashboard\/orders\/(shopify|crypto|reseller|admin)\/([^"]+)"/g)].map(
        (m) => `${m[1]}:${decodeURIComponent(m[2]!)}`,
      ),
    ),
  ];
}

function olderLink(page: string): string | null {
  const match = /href="(\/dashboard\/orders\?[^"]*cursor=[^"]*)"/.exec(page);
  return match ? match[1]!.replace(/&amp;/g, "&") : null;
}

async function shopifyOrder(values: Partial<typeof shopifyOrders.$inferInsert> = {}) {
  const id = String(nextId());
  await db.insert(shopifyOrders).values({
    id,
    name: `#${id}`,
    email: `${unique("buyer")}@example.test`,
    currency: "USD",
    totalPrice: "29.99",
    lineItems: "[]",
    receivedAt: Date.now(),
    paidAt: Date.now(),
    ...values,
  });
  return id;
}

const orderUrl = (source: string, reference: string) => `/dashboard/orders/${source}/${encodeURIComponent(reference)}`;

async function keyRef(code: string) {
  const row = await db.select({ id: productCodes.id }).from(productCodes).where(eq(productCodes.code, code)).get();
  return `c${row!.id}`;
}

describe("who may see and act on orders", () => {
  it("refuses a member every page, action and export with 403, and changes nothing", async () => {
    const { key, orderId } = await boughtKey();
    const cookie = await member();
    const ref = await keyRef(key);
    for (const path of [
      "/dashboard/orders",
      "/dashboard/orders.data",
      orderUrl("shopify", String(orderId)),
      "/dashboard/orders/export.csv",
      "/dashboard/orders/keys.csv",
    ]) {
      expect([path, (await call(path, { cookie })).status]).toEqual([path, 403]);
    }
    const forms: Record<string, string>[] = [
      { intent: "reveal", key: ref },
      { intent: "resend" },
      { intent: "revoke", key: ref, reason: "x" },
      { intent: "replace", key: ref, reason: "x" },
      { intent: "cancel", reason: "" },
    ];
    for (const form of forms) {
      expect([form.intent, (await call(orderUrl("shopify", String(orderId)), { form, cookie })).status]).toEqual([form.intent, 403]);
    }
    expect(
      (await call("/dashboard/orders", { form: { intent: "manual", email: "a@example.test", variantId: VARIANT, reason: "x" }, cookie }))
        .status,
    ).toBe(403);
    expect((await db.select().from(productCodes).where(eq(productCodes.code, key)).get())!.revokedAt).toBeNull();
    expect(
      await db
        .select()
        .from(auditLog)
        .where(eq(auditLog.subject, `shopify:${orderId}`)),
    ).toHaveLength(0);
  });

  it("lets support see the list and the order, reveal and resend, but not revoke, replace, cancel, hand out or export", async () => {
    const { key, orderId, email } = await boughtKey();
    const cookie = await staff("support");
    const ref = await keyRef(key);
    const url = orderUrl("shopify", String(orderId));
    expect((await call("/dashboard/orders", { cookie })).status).toBe(200);
    expect((await call(url, { cookie })).status).toBe(200);
    const revealed = await call(url, { form: { intent: "reveal", key: ref }, cookie });
    expect(revealed.status).toBe(200);
    expect(await revealed.text()).toContain(key);
    const resent = await call(url, { form: { intent: "resend" }, cookie });
    expect(resent.status).toBe(200);
    expect(
      await db
        .select()
        .from(mailOutbox)
        .where(and(eq(mailOutbox.toAddress, email), like(mailOutbox.dedupeKey, "resend:%"))),
    ).toHaveLength(1);
    // A second resend within the minute is refused: staff cannot flood the buyer's inbox.
    const again = await call(url, { form: { intent: "resend" }, cookie });
    expect(again.status).toBe(429);
    expect(await again.text()).toContain("less than a minute ago");
    expect(
      await db
        .select()
        .from(mailOutbox)
        .where(and(eq(mailOutbox.toAddress, email), like(mailOutbox.dedupeKey, "resend:%"))),
    ).toHaveLength(1);
    const refused: Record<string, string>[] = [
      { intent: "revoke", key: ref, reason: "x" },
      { intent: "replace", key: ref, reason: "x" },
      { intent: "cancel", reason: "" },
    ];
    for (const form of refused) {
      expect([form.intent, (await call(url, { form, cookie })).status]).toEqual([form.intent, 403]);
    }
    expect(
      (await call("/dashboard/orders", { form: { intent: "manual", email: "a@example.test", variantId: VARIANT, reason: "x" }, cookie }))
        .status,
    ).toBe(403);
    expect((await call("/dashboard/orders/export.csv", { cookie })).status).toBe(403);
    expect((await call("/dashboard/orders/keys.csv", { cookie })).status).toBe(403);
    expect((await db.select().from(productCodes).where(eq(productCodes.code, key)).get())!.revokedAt).toBeNull();
  });

  it("answers 404 for an unknown order or source, and for a key of another order", async () => {
    const cookie = await staff("admin");
    expect((await call(orderUrl("shopify", "999999999999"), { cookie })).status).toBe(404);
    expect((await call("/dashboard/orders/paypal/1", { cookie })).status).toBe(404);
    expect((await call(orderUrl("admin", "abc"), { cookie })).status).toBe(404);
    const mine = await boughtKey();
    const other = await boughtKey();
    const response = await call(orderUrl("shopify", String(mine.orderId)), {
      form: { intent: "reveal", key: await keyRef(other.key) },
      cookie,
    });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain(other.key);
    const forged = await call(orderUrl("shopify", String(mine.orderId)), {
      form: { intent: "revoke", key: await keyRef(other.key), reason: "forged" },
      cookie,
    });
    expect(forged.status).toBe(404);
    expect((await db.select().from(productCodes).where(eq(productCodes.code, other.key)).get())!.revokedAt).toBeNull();
  });
});

describe("the order list", () => {
  it("pages through every order of a day, newest first, without overlap or gaps", async () => {
    const cookie = await staff("support");
    const { day, start } = quietDay(1990);
    const ids: string[] = [];
    // Some orders share a millisecond: the key breaks the tie, so no page boundary loses one.
    for (let i = 0; i < 120; i++) ids.push(await shopifyOrder({ receivedAt: start + Math.floor(i / 3) * 1000 }));
    const expected = ids
      .map((id) => ({ key: `shopify:${id}`, at: start + Math.floor(ids.indexOf(id) / 3) * 1000 }))
      .sort((a, b) => b.at - a.at || (a.key < b.key ? 1 : -1))
      .map((o) => o.key);
    const seen: string[] = [];
    let url: string | null = `/dashboard/orders?from=${day}&to=${day}`;
    let pages = 0;
    while (url) {
      const page = await html(await call(url, { cookie }));
      const links = orderLinks(page);
      expect(links.length).toBeLessThanOrEqual(50);
      seen.push(...links);
      url = olderLink(page);
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
  });

  it("merges every source into one order, ties across sources broken by key, each source read from its own time index", async () => {
    const cookie = await staff("support");
    const { day, start } = quietDay(1990);
    const reseller = await createAccount();
    const orders: { key: string; at: number }[] = [];
    // Four sources in turns, six orders to a millisecond, so pages end inside a source and inside a tie.
    for (let i = 0; i < 110; i++) {
      const at = start + Math.floor(i / 6) * 1000;
      const source = i % 4;
      if (source === 0) orders.push({ key: `shopify:${await shopifyOrder({ receivedAt: at })}`, at });
      else if (source === 1) orders.push({ key: `crypto:${(await cryptoOrder({ createdAt: at })).orderNumber}`, at });
      else if (source === 2) {
        const [row] = await db
          .insert(resellerLedger)
          .values({ userId: reseller.id, kind: "purchase", amountCents: -500, createdAt: at })
          .returning({ id: resellerLedger.id });
        orders.push({ key: `reseller:${row!.id}`, at });
      } else {
        const [row] = await db
          .insert(manualOrders)
          .values({
            email: unique("manual") + "@example.test",
            variantId: VARIANT,
            variantTitle: VARIANT_TITLE,
            reason: "test",
            createdAt: at,
          })
          .returning({ id: manualOrders.id });
        orders.push({ key: `admin:${row!.id}`, at });
      }
    }
    const expected = orders.sort((a, b) => b.at - a.at || (a.key < b.key ? 1 : -1)).map((o) => o.key);
    const seen: string[] = [];
    let url: string | null = `/dashboard/orders?from=${day}&to=${day}`;
    while (url) {
      const page = await html(await call(url, { cookie }));
      seen.push(...orderLinks(page));
      url = olderLink(page);
    }
    expect(seen).toEqual(expected);

    // The view's arms share each column's affinity (and the list selects what it orders by), so
    // SQLite reads the newest orders through each table's time index and stops after a page,
    // rather than sorting every order of every source.
    const plan = await db.$client
      .prepare(
        "explain query plan select key, created_at from order_index where created_at < ? order by created_at desc, key desc limit 51",
      )
      .bind(start + 86_400_000)
      .all<{ detail: string }>();
    const details = plan.results.map((row) => row.detail);
    expect(details.some((detail) => detail.startsWith("CO-ROUTINE"))).toBe(false);
    for (const index of ["shopify_orders_received", "crypto_orders_created", "reseller_ledger_kind", "manual_orders_created"])
      expect(details.some((detail) => new RegExp(`USING (COVERING )?INDEX ${index} `).test(detail))).toBe(true);
  });

  it("draws each order of a page once: one table whose cells name their column for a phone's cards", async () => {
    const cookie = await staff("support");
    const { day, start } = quietDay(1990);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await shopifyOrder({ receivedAt: start + i }));
    const page = await html(await call(`/dashboard/orders?from=${day}&to=${day}`, { cookie }));
    for (const id of ids) expect(page.split(`href="/dashboard/orders/shopify/${encodeURIComponent(id)}"`)).toHaveLength(2);
    expect(page.match(/<table[^>]*aria-label="Orders"/g)).toHaveLength(1);
    expect(page).not.toMatch(/<ul[^>]*aria-label="Orders"/);
    for (const column of ["Order", "Source", "E-mail", "State", "Total", "Method", "Date"])
      expect(page.split(`data-label="${column}"`)).toHaveLength(ids.length + 1);
  });

  it("filters by source and state", async () => {
    const cookie = await staff("support");
    const { day, start } = quietDay(1990);
    const paid = await shopifyOrder({ receivedAt: start });
    const cancelled = await shopifyOrder({ receivedAt: start + 1, cancelledAt: start + 2 });
    const { orderNumber } = await cryptoOrder({ createdAt: start + 3 });
    const all = orderLinks(await html(await call(`/dashboard/orders?from=${day}&to=${day}`, { cookie })));
    expect(all).toEqual([`crypto:${orderNumber}`, `shopify:${cancelled}`, `shopify:${paid}`]);
    expect(orderLinks(await html(await call(`/dashboard/orders?from=${day}&to=${day}&source=shopify`, { cookie })))).toEqual([
      `shopify:${cancelled}`,
      `shopify:${paid}`,
    ]);
    expect(orderLinks(await html(await call(`/dashboard/orders?from=${day}&to=${day}&state=cancelled`, { cookie })))).toEqual([
      `shopify:${cancelled}`,
    ]);
  });

  it("shows bad filters as a problem on the page, never a 500", async () => {
    const cookie = await staff("support");
    for (const [query, message] of [
      ["source=paypal", "Unknown source"],
      ["from=2024-13-45", "From must be a date"],
      ["from=2024-05-02&to=2024-05-01", "From must not be after To"],
      ["cursor=not-a-cursor", "This link to a page of orders is broken"],
      ["cursor=%3Cscript%3E", "This link to a page of orders is broken"],
    ]) {
      const response = await call(`/dashboard/orders?${query}`, { cookie });
      expect([query, response.status]).toEqual([query, 400]);
      expect(await html(response)).toContain(message);
    }
  });

  it("finds an order by e-mail (any case), key, order number and transaction id", async () => {
    const cookie = await staff("support");
    const search = async (q: string) => orderLinks(await html(await call(`/dashboard/orders?q=${encodeURIComponent(q)}`, { cookie })));
    const { key, email, orderId, order } = await boughtKey();
    expect(await search(email.toUpperCase())).toEqual([`shopify:${orderId}`]);
    expect(await search(key)).toEqual([`shopify:${orderId}`]);
    expect(await search(order.name)).toContain(`shopify:${orderId}`);
    expect(await search(order.name.slice(1))).toContain(`shopify:${orderId}`);

    const txid = transactionId();
    const paidByChain = await cryptoOrder({ payments: JSON.stringify([{ txid, units: 1000, height: 5 }]) });
    const typed = transactionId();
    const typedIn = await cryptoOrder({ transactionId: typed, status: "submitted" });
    expect(await search(txid)).toEqual([`crypto:${paidByChain.orderNumber}`]);
    expect(await search(typed.toUpperCase())).toEqual([`crypto:${typedIn.orderNumber}`]);
    expect(await search(paidByChain.orderNumber.toLowerCase())).toEqual([`crypto:${paidByChain.orderNumber}`]);
    expect(await search("no-such-thing")).toEqual([]);
  });

  it("ties a reseller's new keys to their purchase and finds it by key and by R-number", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    await call("/dashboard/resell", { cookie });
    await db.update(resellerAccounts).set({ balanceCents: 100_000 }).where(eq(resellerAccounts.userId, account.id));
    expect((await call("/dashboard/resell", { form: { intent: "generate", quantity: "5" }, cookie })).status).toBe(200);
    const keys = await db.select().from(resellerKeys).where(eq(resellerKeys.userId, account.id));
    expect(keys).toHaveLength(5);
    const purchase = keys[0]!.purchaseId;
    expect(purchase).not.toBeNull();
    expect(keys.every((k) => k.purchaseId === purchase)).toBe(true);
    const admin = await staff("admin");
    const search = async (q: string) =>
      orderLinks(await html(await call(`/dashboard/orders?q=${encodeURIComponent(q)}`, { cookie: admin })));
    expect(await search(keys[2]!.keyCode)).toEqual([`reseller:${purchase}`]);
    expect(await search(`R-${purchase}`)).toEqual([`reseller:${purchase}`]);
    const page = await html(await call(orderUrl("reseller", String(purchase)), { cookie: admin }));
    expect(page).toContain("Keys (5)");
    for (const k of keys) expect(page).not.toContain(k.keyCode);
  });
});

describe("the order page", () => {
  it("masks every key in the page and its data, and reveals one only on request, audited", async () => {
    const { key, orderId } = await boughtKey();
    const cookie = await staff("admin");
    const url = orderUrl("shopify", String(orderId));
    const page = await html(await call(url, { cookie }));
    expect(page).toContain(`${key.slice(0, 4)}…${key.slice(-4)}`);
    expect(page).not.toContain(key);
    expect(await (await call(`${url}.data`, { cookie })).text()).not.toContain(key);
    expect(page).toContain("Webhook orders/paid: processed");
    expect(page).toContain("E-mail");
    // Each line's amount in the order's currency.
    expect(page).toMatch(/Vertex Rust - 1 Week[\s\S]{0,120}USD 29\.99/);
    // The licence's state in words, as its owner sees it, not the stored value.
    expect(page).toContain(">Not activated</span>");

    const revealed = await call(url, { form: { intent: "reveal", key: await keyRef(key) }, cookie });
    expect(await revealed.text()).toContain(key);
    const entry = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject, `shopify:${orderId}`), eq(auditLog.action, "order.reveal-key")))
      .get();
    expect(JSON.parse(entry!.detail!)).toEqual({ codeId: Number((await keyRef(key)).slice(1)) });
    expect(await html(await call(url, { cookie }))).toContain("Revealed a key");
  });
});

describe("revoking and replacing keys", () => {
  it("revokes a key: the licence answers REVOKED, the subscription ends and the buyer is told which key and why", async () => {
    const { key, orderId, email } = await boughtKey();
    const cookie = await staff("admin");
    const url = orderUrl("shopify", String(orderId));
    const ref = await keyRef(key);
    const blank = await call(url, { form: { intent: "revoke", key: ref, reason: "  " }, cookie });
    expect(blank.status).toBe(400);
    expect(await blank.text()).toContain("Please give a reason");

    expect((await call(url, { form: { intent: "revoke", key: ref, reason: "Chargeback filed" }, cookie })).status).toBe(200);
    expect((await validate({ key, hwid: hwid(), nonce: "nonce-0123456789abcdef" })).json.code).toBe("REVOKED");
    const mail = await db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.dedupeKey, `keys-stopped:revoke:shopify:${orderId}:${ref}`))
      .get();
    expect(mail?.toAddress).toBe(email);
    expect(mail?.textBody).toContain(key);
    expect(mail?.textBody).toContain("Chargeback filed");
    expect(mail?.orderKey).toBe(`shopify:${orderId}`);
    const again = await call(url, { form: { intent: "revoke", key: ref, reason: "twice" }, cookie });
    expect(again.status).toBe(409);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.subject, `shopify:${orderId}`), eq(auditLog.action, "order.revoke-key"))),
    ).toHaveLength(1);
    const resend = await call(url, { form: { intent: "resend" }, cookie });
    expect(resend.status).toBe(409);
    expect(await resend.text()).toContain("no working keys");
  });

  it("replaces a key from stock in one step, e-mails the new key, and refuses when stock is out with nothing changed", async () => {
    // boughtKey stocks exactly one code of a fresh variant and sells it.
    const { key: oldKey, orderId, lineId, email } = await boughtKey("1 Week");
    const { variantId: variantGid, variantTitle: title } = (await db
      .select()
      .from(productCodes)
      .where(eq(productCodes.code, oldKey))
      .get())!;
    const variant = oldKey.slice("LIC-".length);
    const cookie = await staff("admin");
    const url = orderUrl("shopify", String(orderId));
    const oldRef = await keyRef(oldKey);

    const refused = await call(url, { form: { intent: "replace", key: oldRef, reason: "Broken key" }, cookie });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain(`No ${title} codes in stock`);
    expect((await db.select().from(productCodes).where(eq(productCodes.code, oldKey)).get())!.revokedAt).toBeNull();
    expect(
      await db
        .select()
        .from(productCodes)
        .where(eq(productCodes.orderId, String(orderId))),
    ).toHaveLength(1);

    await addCodes(db, { id: variantGid, title }, `NEW-${variant}-A\nNEW-${variant}-B`);
    // Two replaces of the same key at once: one wins, the other changes nothing.
    const both = await Promise.all([1, 2].map(() => call(url, { form: { intent: "replace", key: oldRef, reason: "Broken key" }, cookie })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const codes = await db
      .select()
      .from(productCodes)
      .where(eq(productCodes.orderId, String(orderId)));
    expect(codes).toHaveLength(2);
    const old = codes.find((c) => c.code === oldKey)!;
    const fresh = codes.find((c) => c.code !== oldKey)!;
    expect(old.revokedAt).not.toBeNull();
    expect(fresh).toMatchObject({
      code: `NEW-${variant}-A`,
      revokedAt: null,
      orderLineId: String(lineId),
      unitIndex: 1,
      customerEmail: email,
    });
    expect(
      (await db
        .select()
        .from(productCodes)
        .where(eq(productCodes.code, `NEW-${variant}-B`))
        .get())!.isUsed,
    ).toBe(false);
    expect((await validate({ key: oldKey, hwid: hwid(), nonce: "nonce-0123456789abcdef" })).json.code).toBe("REVOKED");
    expect((await validate({ key: fresh.code, hwid: hwid(), nonce: "nonce-0123456789abcdef" })).json.code).toBe("VALID");
    const mail = await db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.dedupeKey, `replacement:${fresh.id}`))
      .get();
    expect(mail?.toAddress).toBe(email);
    expect(mail?.textBody).toContain(fresh.code);
  });

  it("replaces the key of a crypto order and of a manual order", async () => {
    const cookie = await staff("admin");
    const email = `${unique("buyer")}@example.test`;
    await addCodes(db, { id: VARIANT, title: VARIANT_TITLE }, `${unique("MANUAL")}\n${unique("MANUAL")}`);
    const created = await call("/dashboard/orders", { form: { intent: "manual", email, variantId: VARIANT, reason: "Goodwill" }, cookie });
    expect(created.status).toBe(302);
    const reference = created.headers.get("Location")!.split("/").at(-1)!;
    const [code] = await db
      .select()
      .from(productCodes)
      .where(eq(productCodes.orderId, `M-${reference}`));
    const replaced = await call(orderUrl("admin", reference), { form: { intent: "replace", key: `c${code!.id}`, reason: "Lost" }, cookie });
    expect(replaced.status).toBe(200);
    const codes = await db
      .select()
      .from(productCodes)
      .where(eq(productCodes.orderId, `M-${reference}`));
    expect(codes.filter((c) => c.revokedAt === null)).toHaveLength(1);
    expect(
      await db
        .select()
        .from(licences)
        .where(eq(licences.orderId, `M-${reference}`)),
    ).toHaveLength(2);

    const { orderNumber } = await cryptoOrder({ status: "complete" });
    const stocked = unique("CRYPTOKEY");
    await addCodes(db, { id: VARIANT, title: VARIANT_TITLE }, `${stocked}\n${unique("SPARE")}`);
    await db
      .update(productCodes)
      .set({ isUsed: true, orderId: orderNumber, orderLineId: "crypto", unitIndex: 0, customerEmail: email, usedAt: Date.now() })
      .where(eq(productCodes.code, stocked));
    const ok = await call(orderUrl("crypto", orderNumber), {
      form: { intent: "replace", key: await keyRef(stocked), reason: "Lost" },
      cookie,
    });
    expect(ok.status).toBe(200);
    expect(
      await db
        .select()
        .from(productCodes)
        .where(and(eq(productCodes.orderId, orderNumber), eq(productCodes.unitIndex, 1))),
    ).toHaveLength(1);
  });
});

describe("manual orders", () => {
  it("hands out a key from stock, records licence and subscription, e-mails it and audits it", async () => {
    const buyer = await createAccount();
    const cookie = await staff("admin");
    const code = unique("HANDOUT");
    await addCodes(db, { id: VARIANT, title: VARIANT_TITLE }, code);
    // Older stock of the variant goes first; take what the order got.
    const response = await call("/dashboard/orders", {
      form: { intent: "manual", email: buyer.email.toUpperCase(), variantId: VARIANT, reason: "Support goodwill" },
      cookie,
    });
    expect(response.status).toBe(302);
    const reference = response.headers.get("Location")!.split("/").at(-1)!;
    expect(response.headers.get("Location")).toBe(`/dashboard/orders/admin/${reference}`);
    const order = await db
      .select()
      .from(manualOrders)
      .where(eq(manualOrders.id, Number(reference)))
      .get();
    expect(order).toMatchObject({ email: buyer.email, userId: buyer.id, reason: "Support goodwill", variantTitle: VARIANT_TITLE });
    const sold = await db
      .select()
      .from(productCodes)
      .where(eq(productCodes.orderId, `M-${reference}`))
      .get();
    expect(sold).toMatchObject({ isUsed: true, customerEmail: buyer.email });
    expect(await db.select().from(licences).where(eq(licences.productCodeId, sold!.id)).get()).toMatchObject({
      ownerEmail: buyer.email,
      orderId: `M-${reference}`,
    });
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.productCodeId, sold!.id)).get()).toMatchObject({
      userId: buyer.id,
      status: "active",
    });
    const mail = await db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.orderKey, `admin:${reference}`))
      .get();
    expect(mail?.textBody).toContain(sold!.code);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "order.manual"), eq(auditLog.subject, `admin:${reference}`)))
        .get(),
    ).toBeDefined();
    const search = orderLinks(await html(await call(`/dashboard/orders?q=M-${reference}`, { cookie })));
    expect(search).toEqual([`admin:${reference}`]);
  });

  it("refuses bad input with the field named, and an out-of-stock variant with nothing written", async () => {
    const cookie = await staff("admin");
    const bad = await call("/dashboard/orders", {
      form: { intent: "manual", email: "not-an-email", variantId: VARIANT, reason: "x" },
      cookie,
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Please enter a valid e-mail");
    const unknown = await call("/dashboard/orders", {
      form: { intent: "manual", email: "a@example.test", variantId: "gid://shopify/ProductVariant/1", reason: "x" },
      cookie,
    });
    expect(unknown.status).toBe(400);
    // A variant in the catalogue with no stock at all.
    const empty = "gid://shopify/ProductVariant/4710000000001";
    await db.delete(productCodes).where(and(eq(productCodes.variantId, empty), eq(productCodes.isUsed, false)));
    const email = `${unique("nostock")}@example.test`;
    const refused = await call("/dashboard/orders", { form: { intent: "manual", email, variantId: empty, reason: "x" }, cookie });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("codes in stock");
    expect(await db.select().from(manualOrders).where(eq(manualOrders.email, email))).toHaveLength(0);
  });
});

describe("cancelling a crypto order", () => {
  it("cancels an open crypto order (admin), audited under the order; a completed one is refused", async () => {
    const cookie = await staff("admin");
    const { orderNumber } = await cryptoOrder();
    const seen = async (number: string) =>
      String((await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, number)).get())!.updatedAt);
    const response = await call(orderUrl("crypto", orderNumber), {
      form: { intent: "cancel", reason: "Buyer asked", seen: await seen(orderNumber) },
      cookie,
    });
    expect(response.status).toBe(200);
    expect((await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get())!.status).toBe("cancelled");
    // One entry, under the order, with the reason.
    const entries = await db
      .select()
      .from(auditLog)
      .where(and(like(auditLog.action, "%cancel%"), eq(auditLog.subject, `crypto:${orderNumber}`)));
    expect(entries.map((e) => [e.action, JSON.parse(e.detail ?? "{}").reason])).toEqual([["crypto-order.cancel", "Buyer asked"]]);
    const done = await cryptoOrder({ status: "complete" });
    expect(
      (
        await call(orderUrl("crypto", done.orderNumber), {
          form: { intent: "cancel", reason: "", seen: await seen(done.orderNumber) },
          cookie,
        })
      ).status,
    ).toBe(409);
  });
});

describe("keys that stopped working, from Shopify", () => {
  it("e-mails the buyer the refunded key once, even when the refund is delivered again", async () => {
    const { key, email, orderId, lineId } = await boughtKey();
    const refundId = nextId();
    const refund = { id: refundId, order_id: orderId, refund_line_items: [{ line_item_id: lineId, quantity: 1 }] };
    await deliver("refunds/create", refund);
    await deliver("refunds/create", refund);
    const mails = await db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.dedupeKey, `keys-stopped:refund:${refundId}`));
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ toAddress: email, orderKey: `shopify:${orderId}` });
    expect(mails[0]!.textBody).toContain(key);
    expect(mails[0]!.textBody).toContain("refunded");
  });

  it("e-mails the keys of a cancelled order once, and nothing when no key was revoked", async () => {
    const { key, email, orderId, order } = await boughtKey();
    await deliver("orders/cancelled", { ...order, cancelled_at: new Date().toISOString() });
    await deliver("orders/cancelled", { ...order, cancelled_at: new Date().toISOString() });
    const mails = await db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.dedupeKey, `keys-stopped:cancel:${orderId}`));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.toAddress).toBe(email);
    expect(mails[0]!.textBody).toContain(key);

    const unpaid = nextId();
    await deliver("orders/cancelled", { id: unpaid, email: `${unique("x")}@example.test`, currency: "USD", line_items: [] });
    expect(
      await db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.orderKey, `shopify:${unpaid}`)),
    ).toHaveLength(0);
  });
});
