// /checkout/demo/:id — the local stand-in for Shopify's hosted checkout (development and tests
// only). Paying sends our own webhook endpoint the signed order Shopify would send.
import { exports } from "cloudflare:workers";
import { data, Form, useNavigation } from "react-router";
import { CheckCircle, Lock } from "~/components/icons";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { answerProblem } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { readSubmission } from "~/http/submission.server";
import { cartTotal } from "~/lib/cart";
import { formatMoney, variantLabel } from "~/lib/plans";
import { demoPaySchema } from "~/lib/schemas/checkout";
import { DEMO_CHECKOUT_ENABLED, getDemoCheckout, payDemoCheckout } from "~/server/catalogue/checkout.server";
import type { Route } from "./+types/checkout.demo";

export const meta: Route.MetaFunction = () => [{ title: "Demo checkout" }, { name: "robots", content: "noindex" }];

export async function loader({ params, context }: Route.LoaderArgs) {
  if (!DEMO_CHECKOUT_ENABLED) throw data(null, { status: 404 });
  const checkout = await getDemoCheckout(app(context).db, params.id);
  if (!checkout) throw data(null, { status: 404 });
  return {
    lines: checkout.lines,
    total: cartTotal({ items: checkout.lines, cartId: null, checkoutUrl: null, isLoading: false }),
    email: checkout.email ?? "",
    orderNumber: checkout.orderNumber,
  };
}

export async function action({ params, request, context }: Route.ActionArgs) {
  if (!DEMO_CHECKOUT_ENABLED) throw data(null, { status: 404 });
  const { db, env } = app(context);
  const submission = await readSubmission(request, demoPaySchema);
  const result = submission.ok
    ? await payDemoCheckout(db, env.SHOPIFY_WEBHOOK_SECRET, params.id, submission.value.email, (webhook) => exports.default.fetch(webhook), new URL(request.url).origin)
    : submission;
  // The problem is shown in the page, next to the e-mail when it is about that; this page has no toasts.
  if (!result.ok) return answerProblem(result.problem);
  // Paid: the page's loader runs again and shows the order.
  return { ok: true as const };
}

export default function DemoCheckout({ loaderData, actionData }: Route.ComponentProps) {
  const { lines, total, email, orderNumber } = loaderData;
  const problem = actionData?.ok === false ? actionData.problem : undefined;
  const paying = useNavigation().state === "submitting";
  return (
    <div className="mx-auto max-w-2xl space-y-6 px-4 py-12">
      <p className="rounded-lg border border-yellow-500/40 bg-yellow-500/10 p-3 text-sm text-yellow-200">
        Demo checkout: no Shopify store is configured, so this page stands in for Shopify's checkout. No money moves.
      </p>
      <Card>
        <h1 className="text-2xl font-bold">{orderNumber ? `Order #${orderNumber}` : "Checkout"}</h1>
        <ul className="mt-4 divide-y divide-line">
          {lines.map((line) => (
            <li key={line.variantId} className="flex justify-between gap-4 py-3 text-sm">
              <span>
                {line.productTitle} — {variantLabel(line.variantTitle)} × {line.quantity}
              </span>
              <span className="font-semibold">{formatMoney(line.price)}</span>
            </li>
          ))}
        </ul>
        <p className="mt-4 flex justify-between border-t border-line pt-4 font-bold">
          <span>Total</span>
          <span>{formatMoney(total)}</span>
        </p>
        {orderNumber ? (
          <p className="mt-6 flex items-center gap-2 text-green-400" role="status">
            <CheckCircle className="size-5" aria-hidden /> Paid. Your key is on its way to your e-mail.
          </p>
        ) : (
          <Form method="post" className="mt-6 space-y-4">
            <Field
              label="E-mail for your key"
              name="email"
              type="email"
              required
              defaultValue={email}
              autoComplete="email"
              error={problem?.field === "email" ? problem.message : undefined}
            />
            {problem && problem.field !== "email" ? (
              <p role="alert" className="text-sm text-red-400">
                {problem.message}
              </p>
            ) : null}
            <Button type="submit" size="lg" className="w-full" disabled={paying}>
              <Lock className="size-4" aria-hidden /> {paying ? "Paying..." : `Pay ${formatMoney(total)}`}
            </Button>
          </Form>
        )}
      </Card>
    </div>
  );
}
