import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  CatalogueError,
  catalogueFor,
  demoCatalogueAdapter,
  type ShopifyConfig,
  storefrontEndpoint,
} from "~/server/catalogue/catalogue.server";

const stub = (behaviour: string): ShopifyConfig => ({
  SHOPIFY_STORE_DOMAIN: "",
  SHOPIFY_STOREFRONT_TOKEN: "stub-token",
  SHOPIFY_API_VERSION: "2025-07",
  SHOPIFY_STOREFRONT_URL: `${env.SHOPIFY_STUB_URL}/${behaviour}-${crypto.randomUUID()}/api/2025-07/graphql.json`,
});

async function hitsFor(config: ShopifyConfig) {
  const behaviour = new URL(config.SHOPIFY_STOREFRONT_URL).pathname.split("/")[1];
  return (await (await fetch(`${env.SHOPIFY_STUB_URL}/hits/${behaviour}`)).json()) as {
    hits: number;
    last: { token: string; variables: Record<string, unknown> } | null;
  };
}

describe("Shopify catalogue adapter (against a local Storefront API stub)", () => {
  it("reads products over GraphQL with the storefront token and the specification's limits", async () => {
    const config = stub("ok");
    const catalogue = catalogueFor(config);
    expect(catalogue.provider).toBe("shopify");
    const products = await catalogue.listProducts();
    expect(products.map((p) => p.handle)).toEqual(["vertex-rust", "vertex-hwid-spoofer"]);
    expect(products[0]!.variants[0]).toMatchObject({
      id: "gid://shopify/ProductVariant/4710000000001",
      title: "1 Week",
      availableForSale: true,
    });
    expect(products[0]!.options[0]).toEqual({ name: "Duration", values: ["1 Week", "30 Days", "Lifetime"] });
    // Shopify's "Default Title" reaches the shop as the name buyers read.
    expect(products[0]!.variants.map((v) => v.title)).toEqual(["1 Week", "30 Days", "Lifetime"]);
    const { last } = await hitsFor(config);
    expect(last?.token).toBe("stub-token");
    expect(last?.variables).toEqual({ first: 10, variantsFirst: 10, imagesFirst: 1 });
  });

  it("looks a product up by handle with up to 5 images and 50 variants, and answers null for an unknown handle", async () => {
    const config = stub("ok");
    const catalogue = catalogueFor(config);
    expect((await catalogue.productByHandle("vertex-rust"))?.title).toBe("Vertex Rust");
    expect((await hitsFor(config)).last?.variables).toEqual({ handle: "vertex-rust", variantsFirst: 50, imagesFirst: 5 });
    expect(await catalogue.productByHandle("no-such-product")).toBeNull();
  });

  it("keeps catalogue responses in the cache: the same query reaches Shopify once", async () => {
    const config = stub("ok");
    await catalogueFor(config).listProducts();
    await catalogueFor(config).listProducts();
    expect((await hitsFor(config)).hits).toBe(1);
  });

  it("tells HTTP 402 (no Storefront API on the store's plan) apart from other failures", async () => {
    const error = await catalogueFor(stub("payment-required"))
      .listProducts()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogueError);
    expect((error as CatalogueError).kind).toBe("payment-required");
    expect((error as CatalogueError).message).toBe("Shopify: Payment required");
    expect(
      await catalogueFor(stub("server-error"))
        .listProducts()
        .catch((e: unknown) => e),
    ).toMatchObject({ kind: "failed" });
  });

  it("reports other HTTP failures as 'HTTP error! status: {code}'", async () => {
    await expect(catalogueFor(stub("server-error")).listProducts()).rejects.toThrow("HTTP error! status: 500");
  });

  it("reports GraphQL errors as 'Error calling Shopify: {messages}'", async () => {
    await expect(catalogueFor(stub("graphql-errors")).listProducts()).rejects.toThrow(
      "Error calling Shopify: Field 'nope' doesn't exist, Throttled",
    );
  });

  it("does not cache failures", async () => {
    const config = stub("server-error");
    await catalogueFor(config)
      .listProducts()
      .catch(() => {});
    await catalogueFor(config)
      .listProducts()
      .catch(() => {});
    expect((await hitsFor(config)).hits).toBe(2);
  });

  it("builds the store endpoint from the domain and API version (default 2025-07)", () => {
    const base = { SHOPIFY_STOREFRONT_TOKEN: "t", SHOPIFY_STOREFRONT_URL: "" };
    expect(storefrontEndpoint({ ...base, SHOPIFY_STORE_DOMAIN: "my-shop.myshopify.com", SHOPIFY_API_VERSION: "" })).toBe(
      "https://my-shop.myshopify.com/api/2025-07/graphql.json",
    );
    expect(storefrontEndpoint({ ...base, SHOPIFY_STORE_DOMAIN: "https://my-shop.myshopify.com/", SHOPIFY_API_VERSION: "2025-07" })).toBe(
      "https://my-shop.myshopify.com/api/2025-07/graphql.json",
    );
  });
});

describe("demo catalogue adapter", () => {
  it("is used when Shopify is not configured", () => {
    expect(
      catalogueFor({ SHOPIFY_STORE_DOMAIN: "", SHOPIFY_STOREFRONT_TOKEN: "", SHOPIFY_API_VERSION: "2025-07", SHOPIFY_STOREFRONT_URL: "" })
        .provider,
    ).toBe("demo");
    expect(catalogueFor(env).provider).toBe("demo");
  });

  it("has the main product's week, month and lifetime variants and a spoofer", async () => {
    const products = await demoCatalogueAdapter().listProducts();
    expect(products[0]!.variants.map((v) => v.title)).toEqual(["1 Week", "30 Days", "Lifetime"]);
    expect(products.some((p) => /spoofer/i.test(p.title))).toBe(true);
    for (const variant of products.flatMap((p) => p.variants)) expect(variant.id).toMatch(/^gid:\/\/shopify\/ProductVariant\/\d+$/);
  });

  it("applies the same limits as the Storefront API", async () => {
    const [first] = await demoCatalogueAdapter().listProducts({ first: 1, variantsFirst: 1, imagesFirst: 1 });
    expect(first!.variants).toHaveLength(1);
    expect(first!.images).toHaveLength(1);
    const product = await demoCatalogueAdapter().productByHandle("vertex-rust");
    expect(product!.images.length).toBeLessThanOrEqual(5);
    expect(await demoCatalogueAdapter().productByHandle("nope")).toBeNull();
  });
});
