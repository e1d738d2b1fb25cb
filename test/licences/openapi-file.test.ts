import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../workers/openapi";

const ORIGIN = "https://shop.test";

describe("the OpenAPI document", () => {
  // `npm run openapi` writes the file again when the code it describes changed.
  it("is the static file the generator writes, served with the shop's own address as its server", async () => {
    await expect(`${JSON.stringify(openApiDocument(), null, 2)}\n`).toMatchFileSnapshot("../../workers/openapi.json");
    const response = await exports.default.fetch(`${ORIGIN}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("application/json");
    expect(await response.json()).toEqual({ ...openApiDocument(), servers: [{ url: `${ORIGIN}/api/v1` }] });
  });
});
