// The catalogue port: products from Shopify's Storefront API when a store is configured,
// otherwise from the demo catalogue in the repository. Both speak the Storefront API's shape,
// so one normaliser turns either into the app's `Product`.
import type { Money, Product } from "~/lib/catalogue";
import { codeLabel, LICENCE_PLANS, type LicencePlan, planOf, variantLabel } from "~/lib/plans";
import demoCatalogue from "./demo-catalogue.json";
import { sha256Hex } from "../platform/tokens.server";
import { LIMITS, PRODUCT_BY_HANDLE_QUERY, PRODUCTS_QUERY } from "./queries.server";
import { cachedJson } from "../platform/json-cache.server";

interface Connection<T> {
  edges: { node: T }[];
}

export interface StorefrontProduct {
  id: string;
  title: string;
  handle: string;
  description: string;
  priceRange: { minVariantPrice: Money; maxVariantPrice: Money };
  images: Connection<{ url: string; altText: string | null; thumbnailUrl: string }>;
  variants: Connection<{
    id: string;
    title: string;
    availableForSale: boolean;
    price: Money;
    selectedOptions: { name: string; value: string }[];
  }>;
  options: { name: string; optionValues?: { name: string }[]; values?: string[] }[];
}

export function normaliseProduct(node: StorefrontProduct): Product {
  return {
    id: node.id,
    title: node.title,
    handle: node.handle,
    description: node.description,
    priceRange: node.priceRange,
    images: node.images.edges.map(({ node: image }) => ({
      url: image.url,
      altText: image.altText ?? null,
      thumbnailUrl: image.thumbnailUrl,
    })),
    // Shopify names a product's only variant "Default Title"; the shop sells it as Lifetime, and
    // every page, picker, e-mail and export after this point reads the name the buyer knows.
    variants: node.variants.edges.map(({ node: variant }) => ({ ...variant, title: variantLabel(variant.title) })),
    options: node.options.map((o) => ({ name: o.name, values: o.optionValues?.map((v) => v.name) ?? o.values ?? [] })),
  };
}

/** A catalogue failure. `payment-required`: the store's plan does not include the Storefront API. */
export class CatalogueError extends Error {
  constructor(
    message: string,
    readonly kind: "payment-required" | "failed" = "failed",
  ) {
    super(message);
    this.name = "CatalogueError";
  }
}

export interface Catalogue {
  readonly provider: "shopify" | "demo";
  listProducts(limits?: { first?: number; variantsFirst?: number; imagesFirst?: number }): Promise<Product[]>;
  productByHandle(handle: string): Promise<Product | null>;
}

export type ShopifyConfig = Pick<
  Env,
  "SHOPIFY_STORE_DOMAIN" | "SHOPIFY_STOREFRONT_TOKEN" | "SHOPIFY_API_VERSION" | "SHOPIFY_STOREFRONT_URL"
>;

export const DEFAULT_API_VERSION = "2025-07";
const CATALOGUE_TTL_SECONDS = 60;

export function isShopifyConfigured(config: ShopifyConfig): boolean {
  return Boolean(config.SHOPIFY_STOREFRONT_TOKEN && (config.SHOPIFY_STOREFRONT_URL || config.SHOPIFY_STORE_DOMAIN));
}

export function storefrontEndpoint(config: ShopifyConfig): string {
  if (config.SHOPIFY_STOREFRONT_URL) return config.SHOPIFY_STOREFRONT_URL;
  const domain = config.SHOPIFY_STORE_DOMAIN.replace(/^https?:\/\//, "").replace(/\/+$/, "");
  return `https://${domain}/api/${config.SHOPIFY_API_VERSION || DEFAULT_API_VERSION}/graphql.json`;
}

interface GraphQLResponse<T> {
  data?: T;
  errors?: { message: string }[];
}

/** Sends one GraphQL document to the Storefront API and turns its failures into the shop's errors (402, other statuses, GraphQL errors). */
export async function storefrontRequest<T>(
  config: ShopifyConfig,
  query: string,
  variables: Record<string, unknown>,
  fetcher: typeof fetch = fetch,
): Promise<T> {
  const response = await fetcher(storefrontEndpoint(config), {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-Shopify-Storefront-Access-Token": config.SHOPIFY_STOREFRONT_TOKEN,
    },
    body: JSON.stringify({ query, variables }),
  });
  if (response.status === 402) {
    throw new CatalogueError("Shopify: Payment required", "payment-required");
  }
  if (!response.ok) {
    const message = `HTTP error! status: ${response.status}`;
    throw new CatalogueError(message);
  }
  const body = (await response.json()) as GraphQLResponse<T>;
  if (body.errors?.length) {
    const message = `Error calling Shopify: ${body.errors.map((e) => e.message).join(", ")}`;
    throw new CatalogueError(message);
  }
  if (!body.data) throw new CatalogueError("Empty response from Shopify");
  return body.data;
}

/**
 * Storefront reads are the same for every visitor, so they are kept in the Worker's cache for a
 * minute, keyed by the endpoint, document and variables.
 */
async function cachedStorefrontRequest<T>(
  config: ShopifyConfig,
  query: string,
  variables: Record<string, unknown>,
  fetcher: typeof fetch,
): Promise<T> {
  const key = `https://catalogue.cache/${await sha256Hex(JSON.stringify([storefrontEndpoint(config), query, variables]))}`;
  return cachedJson("catalogue", key, CATALOGUE_TTL_SECONDS, () => storefrontRequest<T>(config, query, variables, fetcher));
}

export function shopifyCatalogue(config: ShopifyConfig, fetcher: typeof fetch = fetch): Catalogue {
  return {
    provider: "shopify",
    async listProducts({ first = LIMITS.listProducts, variantsFirst = LIMITS.listVariants, imagesFirst = LIMITS.listImages } = {}) {
      const data = await cachedStorefrontRequest<{ products: Connection<StorefrontProduct> }>(
        config,
        PRODUCTS_QUERY,
        { first, variantsFirst, imagesFirst },
        fetcher,
      );
      return data.products.edges.map(({ node }) => normaliseProduct(node));
    },
    async productByHandle(handle) {
      const data = await cachedStorefrontRequest<{ product: StorefrontProduct | null }>(
        config,
        PRODUCT_BY_HANDLE_QUERY,
        { handle, variantsFirst: LIMITS.productVariants, imagesFirst: LIMITS.productImages },
        fetcher,
      );
      return data.product ? normaliseProduct(data.product) : null;
    },
  };
}

const demoProducts = (demoCatalogue.products.edges as { node: StorefrontProduct }[]).map(({ node }) => normaliseProduct(node));

export function demoCatalogueAdapter(): Catalogue {
  const limit = (product: Product, variantsFirst: number, imagesFirst: number): Product => ({
    ...product,
    variants: product.variants.slice(0, variantsFirst),
    images: product.images.slice(0, imagesFirst),
  });
  return {
    provider: "demo",
    async listProducts({ first = LIMITS.listProducts, variantsFirst = LIMITS.listVariants, imagesFirst = LIMITS.listImages } = {}) {
      return demoProducts.slice(0, first).map((p) => limit(p, variantsFirst, imagesFirst));
    },
    async productByHandle(handle) {
      const product = demoProducts.find((p) => p.handle === handle);
      return product ? limit(product, LIMITS.productVariants, LIMITS.productImages) : null;
    },
  };
}

export function catalogueFor(config: ShopifyConfig, fetcher: typeof fetch = fetch): Catalogue {
  return isShopifyConfigured(config) ? shopifyCatalogue(config, fetcher) : demoCatalogueAdapter();
}

/** Every variant the shop sells (up to the admin page's limits), for pickers and lookups. */
export async function allVariants(catalogue: Catalogue) {
  const products = await catalogue.listProducts({ first: LIMITS.adminProducts, variantsFirst: LIMITS.listVariants });
  return products.flatMap((product) =>
    product.variants.map((variant) => ({ product, variant, title: codeLabel(product.title, variant.title) })),
  );
}

/** Each product the shop sells, by title (as licences name it), with the plans its variants sell. */
export async function plansByProduct(catalogue: Catalogue): Promise<Map<string, LicencePlan[]>> {
  const plans = new Map<string, LicencePlan[]>();
  for (const { product, variant } of await allVariants(catalogue)) {
    const sold = new Set([...(plans.get(product.title) ?? []), planOf(variant.title)]);
    plans.set(
      product.title,
      LICENCE_PLANS.filter((plan) => sold.has(plan)),
    );
  }
  return plans;
}
