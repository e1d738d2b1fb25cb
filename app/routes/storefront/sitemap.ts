// /sitemap.xml: every public page, products included.
import { escapeHtml } from "~/server/platform/html.server";
import { LIMITS } from "~/server/catalogue/queries.server";
import { app } from "~/http/context.server";
import { PUBLIC_CACHE_CONTROL } from "~/http/edge-cache.server";
import type { Route } from "./+types/sitemap";

export async function loader({ request, context }: Route.LoaderArgs) {
  const origin = new URL(request.url).origin;
  const products = await app(context)
    .catalogue.listProducts({ first: LIMITS.adminProducts, variantsFirst: 1, imagesFirst: 1 })
    .catch(() => []);
  const paths = ["/", "/products", ...products.map((p) => `/product/${p.handle}`), "/status", "/support", "/affiliate"];
  const body = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${paths.map((path) => `  <url><loc>${escapeHtml(origin + path)}</loc></url>`).join("\n")}
</urlset>
`;
  return new Response(body, { headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": PUBLIC_CACHE_CONTROL } });
}
