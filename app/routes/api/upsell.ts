// GET /api/upsell: the cart drawer's recommended add-on — a product whose title contains
// "spoofer" among the first ten. The same for everyone, so it is cached at the edge.
import { LIMITS } from "~/server/catalogue/queries.server";
import { app } from "~/http/context.server";
import { PUBLIC_CACHE_CONTROL } from "~/http/edge-cache.server";
import type { Route } from "./+types/upsell";

export async function loader({ context }: Route.LoaderArgs) {
  let upsell = null;
  try {
    const products = await app(context).catalogue.listProducts({ first: LIMITS.listProducts, variantsFirst: 1, imagesFirst: 1 });
    const product = products.find((p) => /spoofer/i.test(p.title));
    const variant = product?.variants[0];
    if (product && variant) {
      upsell = {
        variantId: variant.id,
        productId: product.id,
        productTitle: product.title,
        variantTitle: variant.title,
        price: variant.price,
        imageUrl: product.images[0]?.thumbnailUrl,
      };
    }
  } catch (error) {
    // The upsell is a nicety: a failed products fetch is logged and the cart shows none.
    console.error("Failed to load products for the cart upsell:", error);
  }
  return Response.json({ upsell }, { headers: { "Cache-Control": PUBLIC_CACHE_CONTROL } });
}
