// The plan section's states, rendered the way the server renders them.
import { renderToString } from "react-dom/server";
import { createRoutesStub, RouterContextProvider } from "react-router";
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { appContext } from "~/http/context.server";
import { loader as homeLoader } from "~/routes/storefront/home";
import { type Catalogue, demoCatalogueAdapter } from "~/server/catalogue/catalogue.server";
import { db, ORIGIN } from "../helpers";
import { Plans } from "~/routes/storefront/+shared/home/plans";
import type { Product, ProductVariant } from "~/lib/catalogue";
import { planOffer } from "~/lib/plans";

const variant = (n: number, title: string, amount: string): ProductVariant => ({
  id: `gid://shopify/ProductVariant/${n}`,
  title,
  price: { amount, currencyCode: "USD" },
  availableForSale: true,
  selectedOptions: [{ name: "Duration", value: title }],
});

const product = (variants: ProductVariant[]): Product => ({
  id: "gid://shopify/Product/1",
  title: "Vertex Rust",
  handle: "vertex-rust",
  description: "",
  priceRange: { minVariantPrice: variants[0]!.price, maxVariantPrice: variants[0]!.price },
  images: [],
  variants,
  options: [],
});

function render(products: Product[]): string {
  const Stub = createRoutesStub([{ path: "/", Component: () => <Plans offer={planOffer(products)} /> }]);
  return renderToString(<Stub />);
}

describe("Choose Your Plan", () => {
  it("says 'Plans Coming Soon' with a Discord button when there are no products", () => {
    const html = render([]);
    expect(html).toContain("Plans Coming Soon");
    expect(html).toContain("Join Discord for Updates");
  });

  it("says 'Configuring Plans' when the product has no week or month variant", () => {
    expect(render([product([variant(1, "Default Title", "249.99")])])).toContain("Configuring Plans");
  });

  it("shows only the plans that exist", () => {
    const html = render([product([variant(1, "30 Days", "89.99")])]);
    expect(html).toContain("$90/mo");
    expect(html).not.toContain("/wk");
    expect(html).toContain("BEST VALUE");
  });

  it("rounds the headline but says the exact amount charged, as the product page does", () => {
    const html = render([product([variant(1, "1 Week", "29.99"), variant(2, "30 Days", "89.99")])]).replace(/<!-- -->/g, "");
    expect(html).toContain("$30/wk");
    expect(html).toContain("$29.99 for 7 days, charged once");
    expect(html).toContain("$90/mo");
    expect(html).toContain("$89.99 for 30 days, charged once");
  });

  it("links both cards to the first product's page", () => {
    const html = render([product([variant(1, "1 Week", "29.99"), variant(2, "30 Days", "89.99")])]);
    expect(html.match(/href="\/product\/vertex-rust"/g)).toHaveLength(2);
    expect(html.match(/Get Started Now/g)).toHaveLength(2);
  });
});

describe("the home page's plans", () => {
  const demo = demoCatalogueAdapter();
  const loaderWith = (catalogue: Catalogue) => {
    const context = new RouterContextProvider();
    context.set(appContext, { env, ctx: createExecutionContext(), db, catalogue, nonce: "n" });
    return homeLoader({ request: new Request(`${ORIGIN}/`), context, params: {} } as unknown as Parameters<typeof homeLoader>[0]);
  };

  it("come with the page when the catalogue answers at once", async () => {
    const { plans, origin } = await loaderWith(demo);
    expect(origin).toBe(ORIGIN);
    expect(plans).not.toBeInstanceOf(Promise);
    expect((plans as Awaited<typeof plans>).offer?.handle).toBe("vertex-rust");
  });

  it("stream behind the skeleton when the catalogue is slow, and arrive whole", async () => {
    let answer!: () => void;
    const slow: Catalogue = {
      ...demo,
      listProducts: (limits) => new Promise((resolve) => (answer = () => resolve(demo.listProducts(limits)))),
    };
    const { plans } = await loaderWith(slow);
    expect(plans).toBeInstanceOf(Promise);
    answer();
    expect((await plans).offer?.handle).toBe("vertex-rust");
  });
});
