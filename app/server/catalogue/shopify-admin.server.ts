// Shopify's Admin API, for the one thing the Storefront API cannot do: charge a price the shop
// computed. An upgrade costs its new plan less the unused time of the current one (decision 090), so
// its card checkout is a draft order at that price (the variant, with an applied discount for the
// credit) whose invoice URL is the checkout. Paid, it becomes an order like any other, and its
// webhook carries the draft's custom attributes (the licence) as the order's note attributes.
import { fail, ok, type Result } from "~/lib/result";
import { DEFAULT_API_VERSION } from "./catalogue.server";

export type AdminConfig = Pick<Env, "SHOPIFY_STORE_DOMAIN" | "SHOPIFY_API_VERSION" | "SHOPIFY_ADMIN_URL" | "SHOPIFY_ADMIN_TOKEN">;

export function isAdminConfigured(config: AdminConfig): boolean {
  return Boolean(config.SHOPIFY_ADMIN_TOKEN && (config.SHOPIFY_ADMIN_URL || config.SHOPIFY_STORE_DOMAIN));
}

export function adminEndpoint(config: AdminConfig): string {
  if (config.SHOPIFY_ADMIN_URL) return config.SHOPIFY_ADMIN_URL;
  const domain = config.SHOPIFY_STORE_DOMAIN.replace(/^https?:\/\//, "").replace(/\/+$/, "");
  return `https://${domain}/admin/api/${config.SHOPIFY_API_VERSION || DEFAULT_API_VERSION}/graphql.json`;
}

export const DRAFT_ORDER_CREATE = `mutation draftOrderCreate($input: DraftOrderInput!) {
  draftOrderCreate(input: $input) {
    draftOrder { id invoiceUrl totalPriceSet { shopMoney { amount currencyCode } } }
    userErrors { field message }
  }
}`;

interface DraftOrderCreateData {
  draftOrderCreate: {
    draftOrder: { id: string; invoiceUrl: string | null; totalPriceSet: { shopMoney: { amount: string; currencyCode: string } } } | null;
    userErrors: { field: string[] | null; message: string }[];
  };
}

/** What the draft order charges: one unit of the variant, less the credit, for the buyer, with the cart's attributes. */
export interface DraftOrder {
  variantId: string;
  email: string;
  credit: { cents: number; label: string };
  attributes: { key: string; value: string }[];
}

/** Creates the draft order and answers its invoice URL (where the buyer pays) and its id. */
export async function createDraftOrder(
  config: AdminConfig,
  draft: DraftOrder,
  fetcher: typeof fetch = fetch,
): Promise<Result<{ invoiceUrl: string; draftOrderId: string }>> {
  const input = {
    email: draft.email,
    customAttributes: draft.attributes,
    lineItems: [
      {
        variantId: draft.variantId,
        quantity: 1,
        appliedDiscount: {
          title: draft.credit.label.slice(0, 255),
          value: draft.credit.cents / 100,
          valueType: "FIXED_AMOUNT",
        },
      },
    ],
  };
  const response = await fetcher(adminEndpoint(config), {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-Shopify-Access-Token": config.SHOPIFY_ADMIN_TOKEN },
    body: JSON.stringify({ query: DRAFT_ORDER_CREATE, variables: { input } }),
  }).catch((error: unknown) => {
    console.error("Shopify's Admin API could not be reached:", error);
    return null;
  });
  if (!response) return fail("unavailable", "Shopify could not be reached; please try again in a minute");
  if (!response.ok) return fail("unavailable", `Shopify refused the upgrade's checkout (HTTP ${response.status})`);
  const body = (await response.json()) as { data?: DraftOrderCreateData; errors?: { message: string }[] | string };
  if (body.errors) {
    const message = typeof body.errors === "string" ? body.errors : body.errors.map((e) => e.message).join(", ");
    return fail("unavailable", `Error calling Shopify: ${message}`);
  }
  const created = body.data?.draftOrderCreate;
  if (created?.userErrors.length)
    return fail("invalid", `Draft order creation failed: ${created.userErrors.map((e) => e.message).join(", ")}`);
  if (!created?.draftOrder?.invoiceUrl) return fail("unavailable", "No invoice URL returned from Shopify");
  return ok({ invoiceUrl: created.draftOrder.invoiceUrl, draftOrderId: created.draftOrder.id });
}
