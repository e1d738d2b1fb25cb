// The back office's quick jump (/dashboard/search?q=) and the grouped sidebar: who may search,
// what each kind of record is found by, where a direct hit leads, what a role may not see, and odd
// input answered without a failure.
import { describe, expect, it } from "vitest";
import { manualOrders, shopifyOrders } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, cryptoOrder, db, nextId, signIn, unique } from "../helpers";

const SEARCH = "/dashboard/search";

const staff = async (role: "admin" | "support") => signIn(await createAccount({ role }), unique("ip"));
const search = (q: string, cookie: string, extra = "") => call(`${SEARCH}?q=${encodeURIComponent(q)}${extra}`, { cookie });
/** The results page (a direct hit would otherwise jump). */
const results = async (q: string, cookie: string) => {
  const response = await search(q, cookie, "&list=1");
  expect(response.status).toBe(200);
  return (await response.text()).replace(/<!-- -->/g, "");
};
/** The records a results page links to, in the order shown. */
const hits = (html: string) => [
  ...new Set(
    [...html.matchAll(/href="(\/dashboard\/(?:orders\/[a-z]+\/[^"?]+|customers\/[^"?]+|licences\?key=[^"]+))"/g)].map((m) =>
      m[1]!.replace(/&amp;/g, "&"),
    ),
  ),
];

async function shopifyOrder(email = `${unique("buyer")}@example.test`) {
  const id = String(nextId());
  await db.insert(shopifyOrders).values({
    id,
    name: `#${id}`,
    email,
    currency: "USD",
    totalPrice: "29.99",
    lineItems: "[]",
    receivedAt: Date.now(),
    paidAt: Date.now(),
  });
  return id;
}

describe("who may use the quick jump", () => {
  it("refuses a member with 403 (page and data), and sends a signed-out visitor to sign in", async () => {
    const order = await shopifyOrder();
    const cookie = await signIn(await createAccount(), unique("ip"));
    for (const path of [`${SEARCH}?q=${order}`, `${SEARCH}.data?q=${order}`, `${SEARCH}?q=${order}&list=1`]) {
      const response = await call(path, { cookie });
      expect([path, response.status]).toEqual([path, 403]);
      expect(await response.text()).not.toContain(`/dashboard/orders/shopify/${order}`);
    }
    const visitor = await call(`${SEARCH}?q=${order}`);
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("Location")).toBe("/auth");
  });

  it("shows support only what its role may open: the admins' pages are not found for it", async () => {
    const admin = await staff("admin");
    const support = await staff("support");
    const adminPage = await results("codes", admin);
    expect(adminPage).toContain('href="/dashboard/manage-codes"');
    const supportPage = await results("codes", support);
    expect(supportPage).not.toContain('href="/dashboard/manage-codes"');
    expect(supportPage).toContain("Nothing found");
    // A page's name alone jumps to it, for whoever may open it.
    expect((await search("audit log", support)).headers.get("Location")).toBe("/dashboard/audit");
    expect(await results("Sales", support)).not.toContain('href="/dashboard/sales"');
    expect(await results("Sales", admin)).toContain('href="/dashboard/sales"');
  });
});

describe("what the quick jump finds", () => {
  it("finds an order by the number people quote and jumps straight to it: Shopify (#1001 or 1001), crypto (any case), a manual order", async () => {
    const cookie = await staff("support");
    const shopify = await shopifyOrder();
    const { orderNumber: crypto } = await cryptoOrder();
    const manual = await db
      .insert(manualOrders)
      .values({
        email: `${unique("m")}@example.test`,
        variantId: "v",
        variantTitle: "Vertex Rust - 1 Week",
        reason: "goodwill",
        createdAt: Date.now(),
      })
      .returning({ id: manualOrders.id })
      .get();
    const cases: [string, string][] = [
      [`#${shopify}`, `/dashboard/orders/shopify/${shopify}`],
      [shopify, `/dashboard/orders/shopify/${shopify}`],
      [crypto.toLowerCase(), `/dashboard/orders/crypto/${crypto}`],
      [` ${crypto} `, `/dashboard/orders/crypto/${crypto}`],
      [`M-${manual.id}`, `/dashboard/orders/admin/${manual.id}`],
    ];
    for (const [q, page] of cases) {
      const response = await search(q, cookie);
      expect([q, response.status, response.headers.get("Location")]).toEqual([q, 302, page]);
      expect(hits(await results(q, cookie))).toContain(page);
    }
  });

  it("finds a customer by e-mail (any case) or username and jumps to the account; a card buyer without one by e-mail", async () => {
    const cookie = await staff("admin");
    const member = await createAccount();
    const account = `/dashboard/customers/${member.id}`;
    expect((await search(member.email.toUpperCase(), cookie)).headers.get("Location")).toBe(account);
    expect((await search(member.username, cookie)).headers.get("Location")).toBe(account);
    // The start of a username lists the account without jumping anywhere.
    expect(hits(await results(member.username.slice(0, -2), cookie))).toContain(account);

    const buyer = `${unique("cardbuyer")}@example.test`;
    const order = await shopifyOrder(buyer);
    const page = await results(buyer, cookie);
    expect(hits(page)).toEqual(
      expect.arrayContaining([`/dashboard/customers/email/${encodeURIComponent(buyer)}`, `/dashboard/orders/shopify/${order}`]),
    );
    expect((await search(buyer, cookie)).headers.get("Location")).toBe(`/dashboard/customers/email/${encodeURIComponent(buyer)}`);
  });

  it("finds a licence by its key and jumps to the licence page; its order and owner are listed beside it", async () => {
    const cookie = await staff("support");
    const { key, orderId, email } = await boughtKey();
    const response = await search(key, cookie);
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/dashboard/licences?key=${encodeURIComponent(key)}`);
    const page = await results(key, cookie);
    expect(hits(page)).toEqual(
      expect.arrayContaining([
        `/dashboard/licences?key=${encodeURIComponent(key)}`,
        `/dashboard/orders/shopify/${orderId}`,
        `/dashboard/customers/email/${encodeURIComponent(email)}`,
      ]),
    );
  });

  it("lists at most five of a kind, with a link to the full search", async () => {
    // Seven card buyers whose e-mails start alike.
    const cookie = await staff("admin");
    const prefix = unique("many");
    for (let i = 0; i < 7; i += 1) await shopifyOrder(`${prefix}${i}@example.test`);
    const page = await results(prefix, cookie);
    const customers = hits(page).filter((href) => href.startsWith("/dashboard/customers/"));
    expect(customers).toHaveLength(5);
    expect(page).toContain(`href="/dashboard/customers?q=${prefix}"`);
  });
});

describe("odd input", () => {
  it("answers 400 or an empty result, never a failure", async () => {
    const cookie = await staff("admin");
    const odd = [
      "",
      " ",
      "\u0000",
      "%",
      "_",
      "'; drop table users; --",
      "#",
      "M-",
      "R-",
      "M-99999999999999999999999",
      "CRYPTO-",
      "@",
      "x".repeat(257),
      "🔑🔑",
      "\uFFFD",
      "\\",
      "a\nb",
      "<script>",
    ];
    for (const q of odd) {
      const response = await search(q, cookie, "&list=1");
      expect([q, response.status === 200 || response.status === 400]).toEqual([q, true]);
      if (response.status === 200) expect([q, hits(await response.text())]).toEqual([q, []]);
    }
    for (const path of [
      `${SEARCH}?q=%E0%A4%A`,
      `${SEARCH}?q=%ED%A0%80`,
      `${SEARCH}?q=a&q=b&list=yes`,
      `${SEARCH}?list=1`,
      `${SEARCH}.data?q=%00`,
    ]) {
      const response = await call(path, { cookie });
      expect([path, response.status === 200 || response.status === 400]).toEqual([path, true]);
    }
  });
});

describe("the sidebar's groups", () => {
  const groups = ["Sales", "Keys &amp; licences", "Catalogue &amp; releases", "Community", "Settings"];
  const summaries = (html: string) => [...html.matchAll(/<summary[^>]*>[\s\S]*?<span[^>]*>([^<]+)<\/span>/g)].map((m) => m[1]);

  it("groups an admin's staff pages as shop admins expect, the current page's group open", async () => {
    const html = await (await call("/dashboard/audit", { cookie: await staff("admin") })).text();
    expect(summaries(html)).toEqual(groups);
    expect(html).toMatch(/<details[^>]*open=""[^>]*>\s*<summary[^>]*>[\s\S]*?Settings/);
  });

  it("leaves out a group support cannot use", async () => {
    const html = await (await call("/dashboard", { cookie: await staff("support") })).text();
    expect(summaries(html)).toEqual(["Sales", "Keys &amp; licences", "Community", "Settings"]);
  });
});
