// /dashboard/promotions: what the product page may claim (decision 075). The number of paid orders
// in the last 24 hours from which a product page says how often it was bought, and each product's
// sale: staff's words and the real time it ends. Admins only; every change is audited and drops
// the product pages' cached copies.
import { Card } from "~/components/ui/card";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { pageAndData, purgePages } from "~/http/edge-cache.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { fail } from "~/lib/result";
import { promotionsSchema } from "~/lib/schemas/reviews";
import { LIMITS } from "~/server/catalogue/queries.server";
import {
  endProductSale,
  productSaleList,
  recentPurchasersThreshold,
  setProductSale,
  setRecentPurchasersThreshold,
} from "~/server/catalogue/promotions.server";
import { SaleForm, ThresholdForm } from "./+shared/promotions/promotion-forms";
import type { Route } from "./+types/promotions";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("promotions.manage")];

export const meta: Route.MetaFunction = () => [{ title: `Promotions | ${BRAND}` }];

const productsOf = (context: Route.LoaderArgs["context"]) =>
  app(context).catalogue.listProducts({ first: LIMITS.listProducts, variantsFirst: 1, imagesFirst: 1 });

export async function loader({ context }: Route.LoaderArgs) {
  const { db } = app(context);
  const [products, sales, threshold] = await Promise.all([productsOf(context), productSaleList(db), recentPurchasersThreshold(db)]);
  return {
    threshold,
    products: products.map(({ id, title, handle }) => ({ title, handle, sale: sales.find((s) => s.productId === id) ?? null })),
  };
}

const titles: ProblemTitles = { invalid: "Please check the form", "not-found": "Not found" };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "promotions", promotionsSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: input, viewer } = submission;
  const { db } = app(context);
  const ip = clientAddress(request);
  const origin = new URL(request.url).origin;
  const products = await productsOf(context);
  if (input.intent === "threshold") {
    const saved = await setRecentPurchasersThreshold(db, viewer, input.threshold, ip);
    await purgePages(
      origin,
      products.flatMap((p) => pageAndData(`/product/${p.handle}`)),
    );
    return answer(saved, {
      titles,
      intent: input.intent,
      success: ({ threshold }) => ({
        title: "Threshold saved",
        description: `Product pages say how often they were bought from ${threshold} orders a day.`,
      }),
    });
  }
  const product = products.find((p) => p.handle === input.product);
  if (!product)
    return answer(fail("not-found", "No such product", { field: "product" }), { titles, intent: input.intent, success: { title: "" } });
  const result =
    input.intent === "sale"
      ? await setProductSale(db, viewer, product.id, { label: input.label, endsAt: input.endsAt }, ip)
      : await endProductSale(db, viewer, product.id, ip);
  if (result.ok) await purgePages(origin, pageAndData(`/product/${product.handle}`));
  return answer<unknown>(result, {
    titles,
    intent: input.intent,
    success: { title: input.intent === "sale" ? "Sale saved" : "Sale ended", description: product.title },
  });
}

export default function Promotions({ loaderData }: Route.ComponentProps) {
  const { threshold, products } = loaderData;
  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-3xl font-black">Promotions</h1>
        <p className="mt-2 max-w-2xl text-sm text-muted">
          What the product pages claim comes from real data: the paid orders of the last 24 hours, and sales with a real end. The checkout
          charges the catalogue&apos;s prices, so a sale&apos;s label must describe prices the catalogue already has.
        </p>
      </div>
      <ThresholdForm threshold={threshold} />
      <Card>
        <h2 className="font-bold">Sales</h2>
        {products.length === 0 ? (
          <p className="mt-3 text-sm text-muted">The catalogue has no products.</p>
        ) : (
          <ul className="mt-4 space-y-4">
            {products.map((product) => (
              <SaleForm key={product.handle} {...product} />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
