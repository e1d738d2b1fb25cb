import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { catalogueFor, demoCatalogueAdapter, type ShopifyConfig } from "~/server/catalogue/catalogue.server";
import { createCheckout, demoOrderPayload, getDemoCheckout, payDemoCheckout, type SignedWebhook } from "~/server/catalogue/checkout.server";
import { addCodes } from "~/server/keys/stock.server";
import { productCodes, shopifyOrders, webhookDeliveries } from "~/server/platform/db/schema.server";
import { verifyWebhookSignature } from "~/server/platform/shopify-hmac.server";
import type { Result } from "~/lib/result";
import {
  call,
  createAccount,
  db,
  deliver,
  handled,
  nextId,
  ORIGIN,
  paidOrderPayload,
  pulledBody,
  signIn,
  type TestAccount,
  unique,
} from "../helpers";

let buyer: TestAccount;
beforeAll(async () => {
  buyer = await createAccount();
});

const postCheckout = (body: unknown, cookie?: string) =>
  exports.default.fetch(
    new Request(`${ORIGIN}/api/checkout`, {
      method: "POST",
      headers: { Origin: ORIGIN, "Content-Type": "application/json", ...(cookie ? { Cookie: cookie } : {}) },
      body: JSON.stringify(body),
    }),
  );
const line = { merchandiseId: "gid://shopify/ProductVariant/4710000000002", quantity: 1 };

function shopify(behaviour: string): ShopifyConfig {
  return {
    SHOPIFY_STORE_DOMAIN: "",
    SHOPIFY_STOREFRONT_TOKEN: "stub-token",
    SHOPIFY_API_VERSION: "2025-07",
    SHOPIFY_STOREFRONT_URL: `${env.SHOPIFY_STUB_URL}/${behaviour}/api/2025-07/graphql.json`,
  };
}

const checkoutWith = (config: ShopifyConfig) =>
  createCheckout({ db, config, catalogue: catalogueFor(config), origin: ORIGIN }, { lines: [line], checkouts: [] }, buyer);
const demoCheckout = (lines: (typeof line)[]) =>
  createCheckout({ db, config: env, catalogue: demoCatalogueAdapter(), origin: ORIGIN }, { lines, checkouts: [] }, buyer);
const checkoutUrlOf = (result: Result<{ checkoutUrl: string }>) => (result as { value: { checkoutUrl: string } }).value.checkoutUrl;

describe("Shopify checkout (cartCreate)", () => {
  it("returns Shopify's checkout URL and the cart's token, which the paid order names", async () => {
    expect(await checkoutWith(shopify("ok"))).toEqual({
      ok: true,
      value: { checkoutUrl: "https://shop.example/cart/c/abc?key=1", cartId: "abc" },
    });
  });

  it("fails with 'Cart creation failed: {messages}' on user errors", async () => {
    expect(await checkoutWith(shopify("user-errors"))).toEqual({
      ok: false,
      problem: { code: "invalid", message: "Cart creation failed: Merchandise is sold out, Quantity too high" },
    });
  });

  it("fails with 'No checkout URL returned from Shopify' when there is none", async () => {
    expect(await checkoutWith(shopify("no-checkout-url"))).toEqual({
      ok: false,
      problem: { code: "unavailable", message: "No checkout URL returned from Shopify" },
    });
  });

  it("passes HTTP failures on as the checkout's error", async () => {
    expect(await checkoutWith(shopify("server-error"))).toEqual({
      ok: false,
      problem: { code: "unavailable", message: "HTTP error! status: 500" },
    });
  });
});

describe("checkout input", () => {
  const cases: [string, unknown, string][] = [
    ["an empty cart", { lines: [] }, "Your cart is empty"],
    ["a non-GID variant", { lines: [{ merchandiseId: "4710000000002", quantity: 1 }] }, "Unknown product variant"],
    ["a zero quantity", { lines: [{ ...line, quantity: 0 }] }, ""],
    ["a fractional quantity", { lines: [{ ...line, quantity: 1.5 }] }, ""],
    ["a quantity sent as text", { lines: [{ ...line, quantity: "1" }] }, ""],
    ["an absurd quantity", { lines: [{ ...line, quantity: 10_000 }] }, ""],
    ["more than 100 lines", { lines: Array.from({ length: 101 }, () => line) }, "A cart holds at most 100 lines"],
    ["no lines at all", {}, ""],
    ["a body that is not an object", null, ""],
  ];
  for (const [name, input, message] of cases) {
    it(`refuses ${name} (422, with the reason)`, async () => {
      const response = await postCheckout(input, await signIn(buyer, unique("ip")));
      expect(response.status).toBe(422);
      expect(((await response.json()) as { message: string }).message).toContain(message);
    });
  }

  it("refuses a variant the catalogue does not sell", async () => {
    const response = await postCheckout(
      { lines: [{ merchandiseId: "gid://shopify/ProductVariant/999", quantity: 1 }] },
      await signIn(buyer, unique("ip")),
    );
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ message: "Cart creation failed: The merchandise does not exist." });
  });

  it("answers a body that is not JSON with 400", async () => {
    const response = await exports.default.fetch(
      new Request(`${ORIGIN}/api/checkout`, {
        method: "POST",
        headers: { Origin: ORIGIN, "Content-Type": "application/json", Cookie: await signIn(buyer, unique("ip")) },
        body: "{lines:",
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: "Invalid request" });
  });

  const postRaw = async (body: BodyInit | null) =>
    exports.default.fetch(
      new Request(`${ORIGIN}/api/checkout`, {
        method: "POST",
        headers: { Origin: ORIGIN, "Content-Type": "application/json", Cookie: await signIn(buyer, unique("ip")) },
        body,
      }),
    );

  it("answers an empty body with 400", async () => {
    const response = await postRaw(null);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: "Invalid request" });
  });

  it("answers a JSON body over 64 KB with 413, however well-formed", async () => {
    // A valid cart padded with spaces to one byte over the cap.
    const body = JSON.stringify({ lines: [line] }).padEnd(64 * 1024 + 1, " ");
    const response = await postRaw(body);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: "Request too large" });
    // At the cap it is read, and the cart's own rules answer.
    expect((await postRaw(JSON.stringify({ lines: [] }).padEnd(64 * 1024, " "))).status).toBe(422);
  });

  it("reads a JSON body of undeclared length only up to 64 KB", async () => {
    const chunk = 4 * 1024;
    // 40 MB if it were read to the end.
    const body = pulledBody(" ".repeat(chunk), 10_000);
    const response = await postRaw(body.stream);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: "Request too large" });
    await vi.waitFor(() => expect(body.cancelled()).toBe(true), { timeout: 5000 });
    expect(body.pulledBytes()).toBeLessThanOrEqual(64 * 1024 + 4 * chunk);
  });
});

describe("demo checkout", () => {
  it("stores the lines with the catalogue's prices, not the browser's, behind an unguessable URL", async () => {
    const result = await demoCheckout([{ ...line, quantity: 2 }]);
    expect(result.ok).toBe(true);
    const url = checkoutUrlOf(result);
    expect(url).toMatch(/^https:\/\/shop\.test\/checkout\/demo\/[A-Za-z0-9_-]{43}$/);
    const stored = await getDemoCheckout(db, url.split("/").pop()!);
    expect(stored?.lines).toEqual([
      expect.objectContaining({
        variantId: line.merchandiseId,
        productTitle: "Vertex Rust",
        variantTitle: "30 Days",
        quantity: 2,
        price: { amount: "89.99", currencyCode: "USD" },
      }),
    ]);
  });

  it("builds a Shopify-shaped order: numeric ids, line items with variant_id, paid", () => {
    const payload = demoOrderPayload({
      id: 5_000_000_001,
      number: 1001,
      email: "buyer@example.test",
      createdAt: Date.UTC(2026, 10, 1),
      cartToken: "demo-cart",
      lines: [
        {
          variantId: line.merchandiseId,
          productId: "gid://shopify/Product/8800000000001",
          productTitle: "Vertex Rust",
          variantTitle: "30 Days",
          price: { amount: "89.99", currencyCode: "USD" },
          quantity: 2,
        },
      ],
    });
    expect(payload).toMatchObject({
      id: 5_000_000_001,
      name: "#1001",
      financial_status: "paid",
      currency: "USD",
      total_price: "179.98",
      email: "buyer@example.test",
      cart_token: "demo-cart",
    });
    expect(payload.line_items[0]).toMatchObject({ variant_id: 4710000000002, product_id: 8800000000001, quantity: 2, price: "89.99" });
  });

  it("pays once: a signed orders/create webhook reaches our own endpoint, a second Pay sends nothing", async () => {
    const id = checkoutUrlOf(await demoCheckout([line]))
      .split("/")
      .pop()!;
    const sent: Request[] = [];
    const deliver = async ({ path, headers, body }: SignedWebhook) => {
      const request = new Request(`${ORIGIN}${path}`, { method: "POST", headers, body });
      sent.push(new Request(request.url, { method: request.method, headers: request.headers, body: await request.clone().text() }));
      return (await exports.default.fetch(request)).status;
    };
    const paid = await payDemoCheckout(db, env.SHOPIFY_WEBHOOK_SECRET, id, "buyer@example.test", deliver);
    expect(paid).toEqual({ ok: true, value: { orderNumber: expect.any(Number) } });
    expect(sent).toHaveLength(1);
    const webhook = sent[0]!;
    expect(new URL(webhook.url).pathname).toBe("/webhooks/shopify");
    expect(webhook.headers.get("X-Shopify-Topic")).toBe("orders/create");
    const body = await webhook.arrayBuffer();
    expect(await verifyWebhookSignature(body, webhook.headers.get("X-Shopify-Hmac-Sha256"), env.SHOPIFY_WEBHOOK_SECRET)).toBe(true);
    // The webhook queues the signed body: the delivery is recorded by the queue's consumer.
    await handled(webhook.headers.get("X-Shopify-Webhook-Id")!);
    const delivery = await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, webhook.headers.get("X-Shopify-Webhook-Id")!))
      .get();
    expect(delivery?.topic).toBe("orders/create");

    const again = await payDemoCheckout(db, env.SHOPIFY_WEBHOOK_SECRET, id, "buyer@example.test", deliver);
    expect(again).toEqual(paid);
    expect(sent).toHaveLength(1);
  });
});

describe("the demo checkout page", () => {
  const newCheckout = async () => new URL(checkoutUrlOf(await demoCheckout([line]))).pathname;

  it("asks for a valid e-mail and takes no payment without one", async () => {
    const path = await newCheckout();
    for (const email of ["", "not-an-address"]) {
      const response = await call(path, { form: { email } });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("Enter a valid e-mail address");
    }
    expect((await getDemoCheckout(db, path.split("/").pop()!))?.paidAt).toBeNull();
  });

  it("answers 404 for a checkout that does not exist", async () => {
    const response = await call(`/checkout/demo/${unique("nope")}`, { form: { email: "buyer@example.test" } });
    expect(response.status).toBe(404);
  });

  it("pays, then shows the paid order on the same page", async () => {
    const path = await newCheckout();
    const response = await call(`${path}?channel=online_store`, { form: { email: "buyer@example.test" } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Paid. Your key is on its way to your e-mail.");
    expect((await getDemoCheckout(db, path.split("/").pop()!))?.paidAt).not.toBeNull();
  });
});

describe("the paid demo checkout's keys", () => {
  it("shows the order's keys to the signed-in buyer who placed it, and to no one else", async () => {
    // Enough stock for this order whatever the other orders of this plan take meanwhile.
    await addCodes(
      db,
      { id: line.merchandiseId, title: "Vertex Rust - 30 Days" },
      Array.from({ length: 5 }, () => unique("PAGE-").toUpperCase()).join("\n"),
    );
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    const { checkoutUrl, cartId } = (await (await postCheckout({ lines: [line] }, cookie)).json()) as {
      checkoutUrl: string;
      cartId: string;
    };
    const path = new URL(checkoutUrl).pathname;
    await call(path, { form: { email: account.email } });
    const { orderId } = (await getDemoCheckout(db, cartId))!;
    const key = await vi.waitFor(
      async () => {
        const sold = await db.select().from(productCodes).where(eq(productCodes.orderId, orderId!)).get();
        if (!sold) throw new Error(`order ${orderId} has no key yet`);
        return sold;
      },
      { timeout: 15_000 },
    );
    const page = await (await call(path, { cookie })).text();
    expect(page).toContain("YOUR KEY");
    expect(page).toContain(key.code);
    expect(page).toContain("Vertex Rust - 30 Days");

    const stranger = await signIn(await createAccount(), unique("ip"));
    for (const other of [await call(path, { cookie: stranger }), await call(path)]) {
      const html = await other.text();
      expect(html).toContain("Paid. Your key is on its way to your e-mail.");
      expect(html).not.toContain(key.code);
    }
  });
});

describe("POST /api/checkout", () => {
  const post = postCheckout;

  it("asks a signed-out visitor to log in", async () => {
    const response = await post({ lines: [line] });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: "Please login to purchase" });
  });

  it("answers a member with a checkout URL, privately", async () => {
    const account = await createAccount();
    const response = await post({ lines: [line] }, await signIn(account, unique("ip")));
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    expect(((await response.json()) as { checkoutUrl: string }).checkoutUrl).toMatch(/\/checkout\/demo\//);
  });

  it("refuses malformed lines", async () => {
    const account = await createAccount();
    const response = await post({ lines: [{ merchandiseId: "x", quantity: 1 }] }, await signIn(account, unique("ip")));
    expect(response.status).toBe(422);
  });
});

describe("a cart that was paid", () => {
  const paidCheck = async (cartIds: string[]) => {
    const response = await call(`/api/checkout?${cartIds.map((id) => `cart=${encodeURIComponent(id)}`).join("&")}`);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    return (await response.json()) as { paid: { cartId: string; order: string }[] };
  };

  it("learns from the order that its demo checkout was paid, and is refused a second checkout of the same things", async () => {
    const account = await createAccount();
    const cookie = await signIn(account, unique("ip"));
    const created = (await (await postCheckout({ lines: [line] }, cookie)).json()) as { checkoutUrl: string; cartId: string };
    expect(created.checkoutUrl).toBe(`${ORIGIN}/checkout/demo/${created.cartId}`);
    expect(await paidCheck([created.cartId])).toEqual({ paid: [] });

    const paid = await call(new URL(created.checkoutUrl).pathname, { form: { email: account.email } });
    expect(paid.status).toBe(200);
    const order = (await getDemoCheckout(db, created.cartId))!;
    expect(await paidCheck([created.cartId, "another-cart"])).toEqual({
      paid: [{ cartId: created.cartId, order: `#${order.orderNumber}` }],
    });
    // The order the webhook recorded names the cart, as Shopify's do.
    await vi.waitFor(
      async () =>
        expect((await db.select().from(shopifyOrders).where(eq(shopifyOrders.id, order.orderId!)).get())?.cartToken).toBe(created.cartId),
      {
        timeout: 15_000,
      },
    );

    const again = await postCheckout({ lines: [line], checkouts: [created.cartId] }, cookie);
    expect(again.status).toBe(422);
    expect(((await again.json()) as { message: string }).message).toBe(
      `This cart was already paid (order #${order.orderNumber}). Your cart is updated; check it before you pay again.`,
    );
  });

  it("learns it from a Shopify order's cart token", async () => {
    const token = unique("cart");
    await deliver("orders/paid", { ...paidOrderPayload({ variant: nextId(), variantTitle: "1 Week", price: "29.99" }), cart_token: token });
    const [answer] = (await paidCheck([token])).paid;
    expect(answer?.cartId).toBe(token);
    expect(answer?.order).toMatch(/^#\d+$/);
  });

  it("answers only about carts it is asked about, and at most five at a time", async () => {
    expect(await paidCheck([unique("nothing")])).toEqual({ paid: [] });
    const tooMany = await call(`/api/checkout?${Array.from({ length: 6 }, (_, i) => `cart=c${i}`).join("&")}`);
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { message: string }).message).toBe("Ask about at most 5 carts");
  });
});
