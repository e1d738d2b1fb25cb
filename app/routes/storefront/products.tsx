// /products: every product in the catalogue.
import { Link } from "~/components/link";
import { Card } from "~/components/ui/card";
import { BRAND } from "~/lib/brand";
import { formatPrice } from "~/lib/plans";
import { LIMITS } from "~/server/catalogue/queries.server";
import { app } from "~/http/context.server";
import { publicPageHeaders } from "~/http/edge-cache.server";
import type { Route } from "./+types/products";
import { counted } from "~/lib/format";

export const headers = publicPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: `Products | ${BRAND}` },
  { name: "description", content: `Every ${BRAND} product: Rust tools and spoofers with weekly, monthly and lifetime plans.` },
  { property: "og:title", content: `Products | ${BRAND}` },
];

export async function loader({ context }: Route.LoaderArgs) {
  try {
    return { products: await app(context).catalogue.listProducts({ first: LIMITS.adminProducts, imagesFirst: 1 }), failed: false };
  } catch (error) {
    console.error("Failed to load products:", error);
    return { products: [], failed: true };
  }
}

export default function Products({ loaderData }: Route.ComponentProps) {
  const { products, failed } = loaderData;
  return (
    <div className="mx-auto max-w-7xl px-4 py-12">
      <h1 className="text-3xl font-black">Products</h1>
      <p className="mt-2 text-muted">Instant delivery by e-mail. Every plan includes all features.</p>
      {products.length === 0 ? (
        <Card className="mt-10 text-center">
          <h2 className="text-lg font-bold">{failed ? "Products are unavailable right now" : "Plans Coming Soon"}</h2>
          <p className="mt-1 text-sm text-muted">{failed ? "Please try again in a moment." : "Check back shortly."}</p>
        </Card>
      ) : (
        <ul className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {products.map((product) => (
            <li key={product.id}>
              <Link
                to={`/product/${product.handle}`}
                className="group block overflow-hidden rounded-xl border border-line bg-panel hover:border-accent"
              >
                {product.images[0] ? (
                  <img
                    src={product.images[0].url}
                    alt={product.images[0].altText ?? product.title}
                    width={600}
                    height={600}
                    loading="lazy"
                    className="aspect-square w-full object-cover"
                  />
                ) : null}
                <div className="p-5">
                  <h2 className="font-bold group-hover:text-accent">{product.title}</h2>
                  <p className="mt-1 text-sm text-muted">
                    From {formatPrice(product.priceRange.minVariantPrice)} · {counted(product.variants.length, "plan")}
                  </p>
                </div>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
