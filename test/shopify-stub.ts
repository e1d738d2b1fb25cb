// A stand-in for Shopify's Storefront API and, for upgrades' draft orders, its Admin API (decision
// 090), served on localhost for the tests. The first path segment picks the behaviour (ok,
// payment-required, server-error, graphql-errors, user-errors, no-checkout-url, optionally suffixed
// with a uuid); GET /hits/<behaviour> says how many GraphQL requests it received, and the last one.
// The Admin API answers `draftOrderCreate` as Shopify does: the draft's total is its line's price
// less the applied discount, and its invoice URL is where the buyer pays.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    shopifyStubUrl: string;
  }
}

const catalogue = JSON.parse(readFileSync(new URL("../app/server/catalogue/demo-catalogue.json", import.meta.url), "utf8"));

interface DraftOrderInput {
  lineItems?: { variantId: string; quantity: number; appliedDiscount?: { value: number; valueType: string } }[];
}

let drafts = 0;

/** draftOrderCreate's answer: the draft at the line's price less its applied discount, or its user errors. */
function draftOrderAnswer(behaviour: string, input: DraftOrderInput | undefined) {
  const refuse = (message: string) => ({ data: { draftOrderCreate: { draftOrder: null, userErrors: [{ field: ["input"], message }] } } });
  if (behaviour.startsWith("user-errors")) return refuse("Variant is not available");
  const [line] = input?.lineItems ?? [];
  const variant = catalogue.products.edges
    .flatMap((e: { node: { variants: { edges: { node: { id: string; price: { amount: string } } }[] } } }) => e.node.variants.edges)
    .find((v: { node: { id: string } }) => v.node.id === line?.variantId)?.node;
  if (!line || !variant) return refuse("Variant does not exist");
  const discount = line.appliedDiscount?.valueType === "FIXED_AMOUNT" ? line.appliedDiscount.value : 0;
  const total = Math.max(0, Number(variant.price.amount) * line.quantity - discount).toFixed(2);
  drafts += 1;
  return {
    data: {
      draftOrderCreate: {
        draftOrder: {
          id: `gid://shopify/DraftOrder/${drafts}`,
          invoiceUrl: `https://shop.example/invoices/draft-${drafts}`,
          totalPriceSet: { shopMoney: { amount: total, currencyCode: "USD" } },
        },
        userErrors: [],
      },
    },
  };
}

export default async function setup(project: TestProject) {
  const hits = new Map<string, number>();
  const lastRequests = new Map<string, unknown>();
  const server = createServer((req, res) => {
    const [, behaviour = "", ...rest] = (req.url ?? "").split("/");
    if (req.method === "GET" && behaviour === "hits") {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ hits: hits.get(rest[0] ?? "") ?? 0, last: lastRequests.get(rest[0] ?? "") ?? null }));
      return;
    }
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      hits.set(behaviour, (hits.get(behaviour) ?? 0) + 1);
      const parsed = JSON.parse(body || "{}") as { query?: string; variables?: Record<string, unknown> };
      const admin = parsed.query?.includes("draftOrderCreate") ?? false;
      const token = req.headers[admin ? "x-shopify-access-token" : "x-shopify-storefront-access-token"];
      lastRequests.set(behaviour, { token, path: req.url, variables: parsed.variables });
      const json = (status: number, payload: unknown) => {
        res.statusCode = status;
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify(payload));
      };
      if (token !== (admin ? "stub-admin-token" : "stub-token"))
        return json(401, {
          errors: admin ? "[API] Invalid API key or access token (unrecognized login or wrong password)" : "Unauthorized",
        });
      if (admin) return json(200, draftOrderAnswer(behaviour, parsed.variables?.input as DraftOrderInput | undefined));
      // A test may add "-<uuid>" to the behaviour so its hit count is its own.
      switch (behaviour.replace(/-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "")) {
        case "payment-required":
          return json(402, { errors: [{ message: "Unavailable Shop" }] });
        case "server-error":
          return json(500, { errors: "Internal error" });
        case "graphql-errors":
          return json(200, { errors: [{ message: "Field 'nope' doesn't exist" }, { message: "Throttled" }] });
        case "user-errors":
          return json(200, {
            data: {
              cartCreate: {
                cart: null,
                userErrors: [
                  { field: ["input", "lines"], message: "Merchandise is sold out" },
                  { field: null, message: "Quantity too high" },
                ],
              },
            },
          });
        case "no-checkout-url":
          return json(200, { data: { cartCreate: { cart: { id: "gid://shopify/Cart/1", checkoutUrl: null }, userErrors: [] } } });
      }
      if (parsed.query?.includes("cartCreate")) {
        return json(200, {
          data: {
            cartCreate: { cart: { id: "gid://shopify/Cart/abc", checkoutUrl: "https://shop.example/cart/c/abc?key=1" }, userErrors: [] },
          },
        });
      }
      if (parsed.query?.includes("product(handle")) {
        const node =
          catalogue.products.edges.find((e: { node: { handle: string } }) => e.node.handle === parsed.variables?.handle)?.node ?? null;
        return json(200, { data: { product: node } });
      }
      const first = Number(parsed.variables?.first ?? 10);
      return json(200, { data: { products: { edges: catalogue.products.edges.slice(0, first) } } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("shopifyStubUrl", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
