// The checkout port: a Shopify cart (cartCreate -> checkoutUrl) when a store is configured,
// otherwise the local demo checkout, which pays by sending our own endpoint the same signed
// order webhook Shopify would. Either carries the cart's attributes (an affiliate's referral) and
// discount code to the paid order, as Shopify does.
import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import * as v from "valibot";
import { isVariantGid, variantNumericId } from "~/lib/catalogue";
import { MAX_CART_CHECKOUTS, MAX_LINE_QUANTITY } from "~/lib/cart";
import { fail, ok, type Result } from "~/lib/result";
import { type Catalogue, CatalogueError, isShopifyConfigured, type ShopifyConfig, storefrontRequest } from "./catalogue.server";
import { CART_CREATE_MUTATION, LIMITS } from "./queries.server";
import { randomToken } from "../platform/tokens.server";
import type { Db } from "../platform/db/client.server";
import { demoCheckouts, shopifyOrders } from "../platform/db/schema.server";
import { signWebhookBody } from "../platform/shopify-hmac.server";
import { type AdminConfig, createDraftOrder, isAdminConfigured } from "./shopify-admin.server";

/** The ids of the checkouts a cart made (GET /api/checkout?cart=…, and with a new checkout). */
export const paidCartsSchema = v.pipe(
  v.array(v.pipe(v.string(), v.minLength(1, "Unknown cart"), v.maxLength(200, "Unknown cart"))),
  v.maxLength(MAX_CART_CHECKOUTS, `Ask about at most ${MAX_CART_CHECKOUTS} carts`),
);

/** The cart's lines as /api/checkout receives them: JSON from the cart, not a form, checked only here (with the provider's cart-line limit). */
export const checkoutSchema = v.object({
  // The checkouts this cart made before (their cart ids): if one of them was paid, no new one is made.
  checkouts: v.optional(paidCartsSchema, []),
  lines: v.pipe(
    v.array(
      v.object({
        merchandiseId: v.pipe(v.string(), v.check(isVariantGid, "Unknown product variant")),
        quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_LINE_QUANTITY)),
      }),
    ),
    v.minLength(1, "Your cart is empty"),
    v.maxLength(LIMITS.cartLines, `A cart holds at most ${LIMITS.cartLines} lines`),
  ),
  // An affiliate's code typed into the cart (it wins over a referral link followed before).
  code: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(64, "This code is not valid")), ""),
});

export type CheckoutLine = v.InferOutput<typeof checkoutSchema>["lines"][number];
/** Where to pay, and the cart id the paid order will name (its `cart_token`). */
type Checkout = { checkoutUrl: string; cartId: string };

/**
 * What the cart carries besides its lines: attributes the paid order repeats (`note_attributes`)
 * and a discount code, with the percentage the shop set up for it (the demo checkout applies it;
 * Shopify knows its own).
 */
export interface CartExtras {
  attributes: { key: string; value: string }[];
  discount: { code: string; percent: number } | null;
}

export const NO_EXTRAS: CartExtras = { attributes: [], discount: null };

interface CheckoutDeps {
  db: Db;
  config: ShopifyConfig;
  catalogue: Catalogue;
  origin: string;
  fetcher?: typeof fetch;
}

interface CartCreateData {
  cartCreate: {
    cart: { id: string; checkoutUrl: string | null } | null;
    userErrors: { field: string[] | null; message: string }[];
  };
}

/**
 * The token part of a Storefront cart id ("gid://shopify/Cart/<token>?key=<secret>"): what
 * Shopify's order webhooks send back as `cart_token`. The secret key never leaves the server.
 */
function cartToken(cartId: string): string {
  return cartId.replace(/^gid:\/\/shopify\/Cart\//, "").replace(/\?.*$/, "");
}

async function shopifyCheckout(deps: CheckoutDeps, lines: CheckoutLine[], email: string, extras: CartExtras): Promise<Result<Checkout>> {
  try {
    const input = {
      lines,
      buyerIdentity: { email },
      attributes: extras.attributes,
      discountCodes: extras.discount ? [extras.discount.code] : [],
    };
    const data = await storefrontRequest<CartCreateData>(deps.config, CART_CREATE_MUTATION, { input }, deps.fetcher);
    const { cart, userErrors } = data.cartCreate;
    if (userErrors.length > 0) return fail("invalid", `Cart creation failed: ${userErrors.map((e) => e.message).join(", ")}`);
    if (!cart?.checkoutUrl) return fail("unavailable", "No checkout URL returned from Shopify");
    return ok({ checkoutUrl: cart.checkoutUrl, cartId: cartToken(cart.id) });
  } catch (error) {
    if (error instanceof CatalogueError) return fail("unavailable", error.message);
    throw error;
  }
}

export interface DemoCheckoutLine {
  variantId: string;
  productId: string;
  productTitle: string;
  variantTitle: string;
  price: { amount: string; currencyCode: string };
  quantity: number;
}

async function demoCheckout(
  deps: CheckoutDeps,
  lines: CheckoutLine[],
  buyer: { id: string; email: string },
  extras: CartExtras,
  credit: Credit | null = null,
): Promise<Result<Checkout>> {
  const products = await deps.catalogue.listProducts({ first: LIMITS.adminProducts, variantsFirst: LIMITS.productVariants });
  const stored: DemoCheckoutLine[] = [];
  for (const line of lines) {
    const product = products.find((p) => p.variants.some((variant) => variant.id === line.merchandiseId));
    const variant = product?.variants.find((variant) => variant.id === line.merchandiseId);
    // Worded as Shopify words its cart errors.
    if (!product || !variant) return fail("invalid", "Cart creation failed: The merchandise does not exist.");
    if (!variant.availableForSale) return fail("conflict", `Cart creation failed: ${product.title} - ${variant.title} is sold out.`);
    stored.push({
      variantId: variant.id,
      productId: product.id,
      productTitle: product.title,
      variantTitle: variant.title,
      price: variant.price,
      quantity: line.quantity,
    });
  }
  const id = randomToken();
  await deps.db.insert(demoCheckouts).values({
    id,
    userId: buyer.id,
    email: buyer.email,
    lines: JSON.stringify(stored),
    attributes: JSON.stringify(extras.attributes),
    discountCode: extras.discount?.code ?? null,
    discountPercent: extras.discount?.percent ?? null,
    creditCents: credit?.cents ?? null,
    creditLabel: credit?.label ?? null,
    createdAt: Date.now(),
  });
  return ok({ checkoutUrl: `${deps.origin}/checkout/demo/${id}`, cartId: id });
}

// The demo checkout hands out real keys for a button press, so a production build never has it:
// without a Shopify store configured, production simply has no checkout.
export const DEMO_CHECKOUT_ENABLED = import.meta.env.MODE !== "production";

/**
 * Which of these carts were paid, and by which order: an order names the cart it came from (its
 * `cart_token`: Shopify's, or the demo checkout's id), and a demo checkout knows at once.
 */
export async function paidCarts(db: Db, cartIds: string[]): Promise<{ cartId: string; order: string }[]> {
  if (cartIds.length === 0) return [];
  const [orders, demos] = await Promise.all([
    db
      .select({ cartId: shopifyOrders.cartToken, order: shopifyOrders.name, id: shopifyOrders.id })
      .from(shopifyOrders)
      .where(inArray(shopifyOrders.cartToken, cartIds)),
    db
      .select({ cartId: demoCheckouts.id, number: demoCheckouts.orderNumber })
      .from(demoCheckouts)
      .where(and(inArray(demoCheckouts.id, cartIds), isNotNull(demoCheckouts.paidAt))),
  ]);
  const paid = new Map<string, string>(demos.map((d) => [d.cartId, `#${d.number}`]));
  for (const o of orders) if (o.cartId) paid.set(o.cartId, o.order ?? o.id);
  return [...paid].map(([cartId, order]) => ({ cartId, order }));
}

/**
 * Creates a checkout for the signed-in buyer and returns where to pay; none while a checkout this
 * cart made before was paid (the buyer would pay for the same things twice).
 */
export async function createCheckout(
  deps: CheckoutDeps,
  input: Pick<v.InferOutput<typeof checkoutSchema>, "lines" | "checkouts">,
  buyer: { id: string; email: string },
  extras: CartExtras = NO_EXTRAS,
): Promise<Result<Checkout>> {
  const [paid] = await paidCarts(deps.db, input.checkouts);
  if (paid)
    return fail("conflict", `This cart was already paid (order ${paid.order}). Your cart is updated; check it before you pay again.`);
  const { lines } = input;
  if (isShopifyConfigured(deps.config)) return shopifyCheckout(deps, lines, buyer.email, extras);
  if (DEMO_CHECKOUT_ENABLED) return demoCheckout(deps, lines, buyer, extras);
  return fail("unavailable", "Checkout is not available: no Shopify store is configured.");
}

/** An amount the shop takes off a checkout's one line: an upgrade's credit for the unused time (decision 090). */
export interface Credit {
  cents: number;
  label: string;
}

/**
 * A checkout of one unit of a plan that names a licence (decision 090): the cart's attribute
 * carries it to the paid order. With a credit (an upgrade), the price is the shop's own: a Shopify
 * draft order through the Admin API, its invoice URL the checkout, or the demo checkout taking the
 * credit off as the draft's applied discount would.
 */
export async function createLicenceCheckout(
  deps: CheckoutDeps & { admin: AdminConfig },
  variantId: string,
  buyer: { id: string; email: string },
  attributes: CartExtras["attributes"],
  credit: Credit | null,
): Promise<Result<Checkout>> {
  const lines = [{ merchandiseId: variantId, quantity: 1 }];
  const extras: CartExtras = { attributes, discount: null };
  if (!credit || credit.cents <= 0) return createCheckout(deps, { lines, checkouts: [] }, buyer, extras);
  if (isShopifyConfigured(deps.config)) {
    if (!isAdminConfigured(deps.admin))
      return fail("unavailable", "Upgrades by card are not available: the shop's Shopify Admin API token is not set.");
    const draft = await createDraftOrder(deps.admin, { variantId, email: buyer.email, credit, attributes }, deps.fetcher);
    return draft.ok ? ok({ checkoutUrl: draft.value.invoiceUrl, cartId: draft.value.draftOrderId }) : draft;
  }
  if (DEMO_CHECKOUT_ENABLED) return demoCheckout(deps, lines, buyer, extras, credit);
  return fail("unavailable", "Checkout is not available: no Shopify store is configured.");
}

/** A demo checkout's discount: the code and what it takes off the subtotal, in cents. */
function demoDiscount(row: { discountCode: string | null; discountPercent: number | null }, subtotalCents: number) {
  if (!row.discountCode || !row.discountPercent) return null;
  return { code: row.discountCode, percent: row.discountPercent, cents: Math.round((subtotalCents * row.discountPercent) / 100) };
}

const subtotalOf = (lines: DemoCheckoutLine[]) => lines.reduce((sum, l) => sum + Math.round(Number(l.price.amount) * 100) * l.quantity, 0);

export async function getDemoCheckout(db: Db, id: string) {
  const row = await db.select().from(demoCheckouts).where(eq(demoCheckouts.id, id)).get();
  if (!row) return null;
  const lines = JSON.parse(row.lines) as DemoCheckoutLine[];
  const subtotalCents = subtotalOf(lines);
  const discount = demoDiscount(row, subtotalCents);
  const credit = demoCredit(row, subtotalCents);
  return { ...row, lines, subtotalCents, discount, credit, totalCents: subtotalCents - (discount?.cents ?? 0) - (credit?.cents ?? 0) };
}

/** A demo checkout's credit (an upgrade's), never more than the subtotal. */
function demoCredit(row: { creditCents: number | null; creditLabel: string | null }, subtotalCents: number): Credit | null {
  if (!row.creditCents || row.creditCents <= 0) return null;
  return { cents: Math.min(row.creditCents, subtotalCents), label: row.creditLabel ?? "Credit" };
}

type DemoOrder = {
  id: number;
  number: number;
  email: string;
  createdAt: number;
  cartToken: string;
  lines: DemoCheckoutLine[];
  attributes?: { key: string; value: string }[];
  discount?: { code: string; percent: number } | null;
  /** Taken off the first line, as a Shopify draft order's applied discount is. */
  credit?: Credit | null;
};

/** A Shopify `orders/create` payload (the fields our webhook reads, as Shopify names them). */
export function demoOrderPayload(order: DemoOrder) {
  const subtotal = subtotalOf(order.lines);
  const discount = order.discount
    ? demoDiscount({ discountCode: order.discount.code, discountPercent: order.discount.percent }, subtotal)
    : null;
  const money = (cents: number) => (cents / 100).toFixed(2);
  const credit = order.credit ? demoCredit({ creditCents: order.credit.cents, creditLabel: order.credit.label }, subtotal) : null;
  const off = (discount?.cents ?? 0) + (credit?.cents ?? 0);
  return {
    id: order.id,
    admin_graphql_api_id: `gid://shopify/Order/${order.id}`,
    name: `#${order.number}`,
    order_number: order.number,
    email: order.email,
    contact_email: order.email,
    created_at: new Date(order.createdAt).toISOString(),
    updated_at: new Date(order.createdAt).toISOString(),
    currency: order.lines[0]?.price.currencyCode ?? "USD",
    total_price: money(subtotal - off),
    subtotal_price: money(subtotal - (credit?.cents ?? 0)),
    total_discounts: money(off),
    // As Shopify lists the cart's attributes and the discount codes applied.
    note_attributes: (order.attributes ?? []).map(({ key, value }) => ({ name: key, value })),
    discount_codes: discount ? [{ code: discount.code, amount: money(discount.cents), type: "percentage" }] : [],
    financial_status: "paid",
    fulfillment_status: null,
    // As Shopify names the cart an order was checked out from.
    cart_token: order.cartToken,
    test: true,
    customer: { email: order.email },
    line_items: order.lines.map((line, index) => ({
      id: order.id * 10 + index + 1,
      admin_graphql_api_id: `gid://shopify/LineItem/${order.id * 10 + index + 1}`,
      variant_id: Number(variantNumericId(line.variantId)),
      product_id: Number(line.productId.split("/").pop()),
      title: line.productTitle,
      variant_title: line.variantTitle,
      name: `${line.productTitle} - ${line.variantTitle}`,
      quantity: line.quantity,
      price: Number(line.price.amount).toFixed(2),
      // A draft order's applied discount shows on its line, as the line's discount.
      ...(credit && index === 0
        ? {
            total_discount: money(credit.cents),
            applied_discount: { title: credit.label, value: money(credit.cents), value_type: "fixed_amount", amount: money(credit.cents) },
          }
        : {}),
      requires_shipping: false,
    })),
  };
}

/** A signed webhook as Shopify would send it: where it goes on the shop, its headers and its body. */
export interface SignedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Pays a demo checkout once and sends the signed `orders/create` webhook to the Worker's own
 * /webhooks/shopify endpoint through `deliver` (a loopback fetch into this Worker), which answers
 * the status the endpoint gave.
 */
export async function payDemoCheckout(
  db: Db,
  secret: string,
  id: string,
  email: string,
  deliver: (webhook: SignedWebhook) => Promise<number>,
): Promise<Result<{ orderNumber: number }>> {
  if (!secret) return fail("unavailable", "SHOPIFY_WEBHOOK_SECRET is not set, so the order webhook cannot be signed.");
  const now = Date.now();
  // Only one payment wins, however many times Pay is pressed.
  const paid = await db
    .update(demoCheckouts)
    .set({
      paidAt: now,
      email,
      orderNumber: sql`(select coalesce(max(${demoCheckouts.orderNumber}), 1000) + 1 from ${demoCheckouts})`,
    })
    .where(and(eq(demoCheckouts.id, id), isNull(demoCheckouts.paidAt)))
    .returning()
    .get();
  if (!paid) {
    const existing = await getDemoCheckout(db, id);
    return existing?.orderNumber ? ok({ orderNumber: existing.orderNumber }) : fail("not-found", "This checkout does not exist.");
  }
  const orderId = now * 1000 + Math.floor(Math.random() * 1000);
  await db
    .update(demoCheckouts)
    .set({ orderId: String(orderId) })
    .where(eq(demoCheckouts.id, id));
  const discount = paid.discountCode && paid.discountPercent ? { code: paid.discountCode, percent: paid.discountPercent } : null;
  const lines = JSON.parse(paid.lines) as DemoCheckoutLine[];
  const attributes = JSON.parse(paid.attributes) as { key: string; value: string }[];
  const credit = paid.creditCents ? { cents: paid.creditCents, label: paid.creditLabel ?? "Credit" } : null;
  const body = JSON.stringify(
    demoOrderPayload({ id: orderId, number: paid.orderNumber!, email, createdAt: now, cartToken: id, lines, attributes, discount, credit }),
  );
  const status = await deliver({
    path: "/webhooks/shopify",
    headers: {
      "Content-Type": "application/json",
      "X-Shopify-Topic": "orders/create",
      "X-Shopify-Hmac-Sha256": await signWebhookBody(body, secret),
      "X-Shopify-Shop-Domain": "demo-checkout.local",
      "X-Shopify-API-Version": "2025-07",
      "X-Shopify-Webhook-Id": crypto.randomUUID(),
      "X-Shopify-Triggered-At": new Date(now).toISOString(),
    },
    body,
  });
  if (status < 200 || status > 299) return fail("failed", `The shop did not accept the order webhook (status ${status}).`);
  return ok({ orderNumber: paid.orderNumber! });
}

/** A deleted account's demo checkouts (decision 099): the address a checkout carried is the account's pseudonym now. */
export const checkoutsOfDeletedAccount = (db: Db, account: { userId: string; email: string; pseudonym: string }) =>
  db
    .update(demoCheckouts)
    .set({ email: account.pseudonym })
    .where(sql`${demoCheckouts.userId} = ${account.userId} or lower(${demoCheckouts.email}) = lower(${account.email})`);
