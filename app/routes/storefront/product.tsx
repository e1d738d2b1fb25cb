// /product/:handle — everything about one product, and the way to buy it.
import { data } from "react-router";
import { Link } from "~/components/link";
import { Gallery } from "./+shared/product/gallery";
import { BuyBox } from "./+shared/product/buy-box";
import { cryptoSetup } from "~/server/crypto/crypto-setup.server";
import { useCartState } from "~/components/cart/cart-store";
import { DemoVideos, WhatYouGet } from "./+shared/product/product-content";
import { Reviews } from "./+shared/product/reviews";
import { MessageCircle } from "~/components/icons";
import { useShop } from "~/components/shop";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { BRAND } from "~/lib/brand";
import { upsellToOffer } from "~/lib/cart";
import { formatPrice } from "~/lib/plans";
import { LIMITS } from "~/server/catalogue/queries.server";
import { app } from "~/http/context.server";
import { readTogether } from "~/server/platform/db/reads.server";
import { notFound } from "~/http/refusals.server";
import { productStatusesRead } from "~/server/status/status-posts.server";
import { loaderCacheHeaders, publicCacheControlUntil } from "~/http/edge-cache.server";
import { productReviewSummaryRead } from "~/server/reviews/reviews.server";
import { productPromotionsRead } from "~/server/catalogue/promotions.server";
import type { Route } from "./+types/product";

// A running sale's end bounds how long the page may be kept, so no copy shows the box after it.
export const headers = loaderCacheHeaders;

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const { catalogue, db, env } = app(context);
  let product;
  try {
    product = await catalogue.productByHandle(params.handle);
  } catch (error) {
    console.error(`Failed to load product "${params.handle}":`, error);
    throw data({ message: "Failed to load product" }, { status: 502 });
  }
  if (!product) throw notFound();
  // The recommended card: another product, a spoofer first (first ten products, as the cart).
  const others = await catalogue
    .listProducts({ first: LIMITS.listProducts, variantsFirst: 1, imagesFirst: 1 })
    .then((list) => list.filter((p) => p.handle !== product.handle))
    .catch(() => []);
  const pick = others.find((p) => /spoofer/i.test(p.title)) ?? others[0];
  const upsell = pick
    ? {
        productId: pick.id,
        title: pick.title,
        handle: pick.handle,
        imageUrl: pick.images[0]?.thumbnailUrl ?? null,
        fromPrice: pick.priceRange.minVariantPrice,
      }
    : null;
  // The coins the shop's wallets are set up for; none: no crypto checkout.
  const cryptoCoins = cryptoSetup(env, db).coins;
  // The product's own status from the status page's posts, beside its badges (decision 046), its
  // reviews and its social proof: one batch, one round trip to the primary, where a change to a
  // review or a sale shows at once (the change purges the page).
  const [statuses, reviews, promotions] = await readTogether(db, [
    productStatusesRead(db, [product.id]),
    productReviewSummaryRead(db, product.id),
    productPromotionsRead(db, product),
  ]);
  const { status } = statuses.get(product.id)!;
  return data(
    { product, upsell, cryptoCoins, status, reviews, promotions, url: new URL(request.url).origin + `/product/${product.handle}` },
    { headers: { "Cache-Control": publicCacheControlUntil(promotions.sale?.endsAt ?? null) } },
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => {
  if (!loaderData) return [{ title: `Product not found | ${BRAND}` }];
  const { product, url, reviews } = loaderData;
  const description = product.description.slice(0, 160);
  const image = product.images[0]?.url;
  const absolute = (path: string) => new URL(path, url).toString();
  return [
    { title: `${product.title} | ${BRAND}` },
    { name: "description", content: description },
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:title", content: product.title },
    { property: "og:description", content: description },
    { property: "og:type", content: "product" },
    { property: "og:url", content: url },
    ...(image ? [{ property: "og:image", content: absolute(image) }] : []),
    { name: "twitter:card", content: "summary_large_image" },
    {
      "script:ld+json": {
        "@context": "https://schema.org",
        "@type": "Product",
        name: product.title,
        description: product.description,
        image: product.images.map((i) => absolute(i.url)),
        brand: { "@type": "Brand", name: BRAND },
        // Only real reviews rate the product, and none means no rating at all.
        ...(reviews.count > 0
          ? {
              aggregateRating: {
                "@type": "AggregateRating",
                ratingValue: reviews.average,
                reviewCount: reviews.count,
                bestRating: 5,
                worstRating: 1,
              },
            }
          : {}),
        offers: product.variants.map((variant) => ({
          "@type": "Offer",
          name: variant.title,
          price: variant.price.amount,
          priceCurrency: variant.price.currencyCode,
          availability: variant.availableForSale ? "https://schema.org/InStock" : "https://schema.org/OutOfStock",
          url,
        })),
      },
    },
  ];
};

export default function ProductPage({ loaderData }: Route.ComponentProps) {
  const { product } = loaderData;
  const { communityUrl } = useShop();
  const upsell = upsellToOffer(loaderData.upsell, useCartState());
  return (
    <div className="mx-auto max-w-7xl space-y-16 px-4 py-10">
      <div className="grid grid-cols-1 gap-10 lg:grid-cols-2">
        <Gallery images={product.images} title={product.title} />
        <div className="space-y-6">
          <BuyBox
            key={product.id}
            product={product}
            cryptoCoins={loaderData.cryptoCoins}
            status={loaderData.status}
            promotions={loaderData.promotions}
          />
          {upsell ? (
            <Card padding="p-4" className="flex items-center gap-4">
              {upsell.imageUrl ? (
                <img src={upsell.imageUrl} alt="" width={64} height={64} loading="lazy" className="size-16 rounded-md object-cover" />
              ) : null}
              <div className="min-w-0 flex-1">
                <p className="text-xs font-bold tracking-wider text-accent">RECOMMENDED</p>
                <p className="truncate font-semibold">{upsell.title}</p>
                <p className="text-sm text-muted">From {formatPrice(upsell.fromPrice)}</p>
              </div>
              <Link to={`/product/${upsell.handle}`} className={buttonClass("outline", "sm")}>
                View
              </Link>
            </Card>
          ) : null}
          <a href={communityUrl} target="_blank" rel="noreferrer" className={buttonClass("secondary", "lg", "w-full")}>
            <MessageCircle className="size-4" aria-hidden /> Join our Discord community
          </a>
        </div>
      </div>
      <section aria-labelledby="about" className="max-w-3xl">
        <h2 id="about" className="text-xl font-bold">
          About {product.title}
        </h2>
        <p className="mt-3 text-muted">{product.description}</p>
      </section>
      <WhatYouGet />
      <DemoVideos />
      <Reviews handle={product.handle} summary={loaderData.reviews} />
    </div>
  );
}
