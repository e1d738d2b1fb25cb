// Every GraphQL document we send is checked against Shopify's official Storefront API schema for
// the version we call (2025-07, shipped in @shopify/hydrogen-react@2025.7.2).
import schemaJson from "@shopify/hydrogen-react/storefront.schema.json";
import { buildClientSchema, type IntrospectionQuery, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import * as documents from "~/server/catalogue/queries.server";

const schema = buildClientSchema(schemaJson as unknown as IntrospectionQuery);

describe("Storefront API 2025-07 documents", () => {
  const entries = Object.entries(documents as Record<string, unknown>).filter(
    (entry): entry is [string, string] => typeof entry[1] === "string",
  );

  it("covers every document the app sends", () => {
    expect(entries.map(([name]) => name).sort()).toEqual(["CART_CREATE_MUTATION", "PRODUCTS_QUERY", "PRODUCT_BY_HANDLE_QUERY"]);
  });

  for (const [name, source] of entries) {
    it(`${name} is valid against the schema`, () => {
      expect(validate(schema, parse(source)).map((e) => e.message)).toEqual([]);
    });
  }

  it("would catch a field the schema does not have", () => {
    expect(validate(schema, parse("{ products(first: 1) { edges { node { nope } } } }"))).not.toHaveLength(0);
  });
});
