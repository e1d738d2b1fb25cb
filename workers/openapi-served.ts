// The licence and seller API's OpenAPI document as /api/v1/openapi.json answers it. The document is
// a static file the Worker reads from the asset layer (decision 119), written by openapi.ts; its
// server is given relative to the shop, and answered as the request's address.
import { staticText } from "~/server/platform/static-text.server";
import openApiUrl from "./openapi.json?url&no-inline";

export async function servedOpenApiDocument(assets: Fetcher, requestUrl: string) {
  const document = JSON.parse(await staticText(assets, requestUrl)(openApiUrl)) as { servers: { url: string }[] };
  return { ...document, servers: document.servers.map((server) => ({ ...server, url: new URL(server.url, requestUrl).href })) };
}
