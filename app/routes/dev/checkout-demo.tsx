// /checkout/demo/:id — the local stand-in for Shopify's hosted checkout (development and tests
// only). Paying sends our own webhook endpoint the signed order Shopify would send; once paid, the
// signed-in buyer who placed it sees the order's keys here as they are handed out.
import { useEffect } from "react";
import { Form, useNavigation } from "react-router";
import { updateCart } from "~/components/cart/cart-store";
import { copyText } from "~/components/copy";
import { CheckCircle, Copy, Lock } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { useRecheckWhile } from "~/components/use-recheck";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { answerProblem } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { deliverToSelf } from "~/http/loopback.server";
import { readSubmission } from "~/http/submission.server";
import { notFound } from "~/http/refusals.server";
import { cartTotal, checkoutPaid } from "~/lib/cart";
import { formatMoney, PLAN_NAME, variantLabel } from "~/lib/plans";
import { RENEWAL_ATTRIBUTE } from "~/lib/renewals";
import { LocalTime } from "~/components/local-time";
import { demoPaySchema } from "~/lib/schemas/checkout";
import { getViewer } from "~/server/accounts/session.server";
import { DEMO_CHECKOUT_ENABLED, getDemoCheckout, payDemoCheckout } from "~/server/catalogue/checkout.server";
import { type BuyerOrderKeys, keysOfOrder } from "~/server/orders/buyer-order.server";
import type { Route } from "./+types/checkout-demo";
import { callerOf } from "~/http/caller.server";

export const meta: Route.MetaFunction = () => [{ title: "Demo checkout" }, { name: "robots", content: "noindex" }];

export async function loader({ params, request, context }: Route.LoaderArgs) {
  if (!DEMO_CHECKOUT_ENABLED) throw notFound();
  const { db } = app(context);
  const checkout = await getDemoCheckout(db, params.id);
  if (!checkout) throw notFound();
  // The keys of the paid order, like the crypto tracker shows them: only to the signed-in buyer who placed it.
  const viewer = checkout.orderId ? await getViewer(db, callerOf(request)) : null;
  const keys = checkout.orderId && viewer && viewer.id === checkout.userId ? await keysOfOrder(db, checkout.orderId) : null;
  const currencyCode = cartTotal({ items: checkout.lines }).currencyCode;
  const money = (cents: number) => ({ amount: (cents / 100).toFixed(2), currencyCode });
  return {
    lines: checkout.lines,
    // The discount code the cart carried, taken off as Shopify takes a percentage discount off.
    discount: checkout.discount
      ? { code: checkout.discount.code, percent: checkout.discount.percent, amount: money(checkout.discount.cents) }
      : null,
    // An upgrade's credit for the unused time, taken off as Shopify's draft order takes it off.
    credit: checkout.credit ? { label: checkout.credit.label, amount: money(checkout.credit.cents) } : null,
    renewsLicence: (JSON.parse(checkout.attributes) as { key: string }[]).some((a) => a.key === RENEWAL_ATTRIBUTE),
    total: money(checkout.totalCents),
    email: checkout.email ?? "",
    orderNumber: checkout.orderNumber,
    keys,
  };
}

export async function action({ params, request, context }: Route.ActionArgs) {
  if (!DEMO_CHECKOUT_ENABLED) throw notFound();
  const { db, env } = app(context);
  const submission = await readSubmission(request, demoPaySchema);
  const result = submission.ok
    ? await payDemoCheckout(db, env.SHOPIFY_WEBHOOK_SECRET, params.id, submission.value.email, (webhook) => deliverToSelf(request, webhook))
    : submission;
  // The problem is shown in the page, next to the e-mail when it is about that; this page has no toasts.
  if (!result.ok) return answerProblem(result.problem);
  // Paid: the page's loader runs again and shows the order.
  return { ok: true as const };
}

/** The paid order's keys, as they are handed out (the job queue does it a moment after the payment). */
function OrderKeys({ keys, renewing }: { keys: BuyerOrderKeys; renewing: boolean }) {
  const { toast } = useToast();
  const expected = keys.keys.length + keys.waiting;
  if (keys.renewals.length > 0) return <Renewed renewals={keys.renewals} />;
  return (
    <div className="mt-6 rounded-lg border border-accent/40 bg-accent/5 p-4">
      <p className="text-xs font-bold tracking-wider text-accent">{keys.keys.length === 1 ? "YOUR KEY" : "YOUR KEYS"}</p>
      {keys.keys.length === 0 && keys.waiting === 0 ? (
        <p className="mt-2 text-sm text-muted" role="status">
          {renewing ? "Your licence's new end appears here in a moment." : "Your keys appear here in a moment."}
        </p>
      ) : (
        <ul className="mt-2 space-y-2" aria-label="Your keys">
          {keys.keys.map((key) => (
            <li key={key.code} className="text-sm">
              <p className="text-muted">{key.variantTitle}</p>
              <p className="flex items-center gap-2 font-mono text-base">
                <span className={`wrap-anywhere ${key.revoked ? "line-through" : ""}`}>{key.code}</span>
                {key.revoked ? (
                  <span className="font-sans text-xs text-red-400">Revoked</span>
                ) : (
                  <button
                    type="button"
                    className="rounded p-1 text-muted hover:text-white"
                    aria-label={`Copy ${key.code}`}
                    onClick={() => copyText(key.code, toast, { title: "Code copied to clipboard!" })}
                  >
                    <Copy className="size-4" aria-hidden />
                  </button>
                )}
              </p>
            </li>
          ))}
          {keys.waiting > 0 ? (
            <li className="text-sm text-muted">
              {keys.waiting} of {expected} {expected === 1 ? "key waits" : "keys wait"} for stock:{" "}
              {keys.waiting === 1 ? "it follows" : "they follow"} by e-mail as soon as it arrives.
            </li>
          ) : null}
        </ul>
      )}
    </div>
  );
}

/** The licence the order extended: same key, its new end. */
function Renewed({ renewals }: { renewals: BuyerOrderKeys["renewals"] }) {
  return (
    <ul className="mt-6 space-y-2 rounded-lg border border-accent/40 bg-accent/5 p-4 text-sm" aria-label="Licences extended">
      {renewals.map((r, i) => (
        <li key={`${r.licence}-${i}`}>
          <span className="font-mono">{r.licence}</span> ({r.product}, {PLAN_NAME[r.plan]}){" "}
          {r.expiresAt === null ? (
            r.kind === "upgrade" && r.plan === "lifetime" ? (
              "is now lifetime."
            ) : (
              "is upgraded: its time starts at its first use."
            )
          ) : (
            <>
              {r.kind === "upgrade" ? "is upgraded, " : "is extended "}until <LocalTime ms={r.expiresAt} format="datetime" />.
            </>
          )}{" "}
          Same key, same PC.
        </li>
      ))}
    </ul>
  );
}

export default function DemoCheckout({ loaderData, actionData, params }: Route.ComponentProps) {
  const { lines, discount, credit, total, email, orderNumber, keys, renewsLicence } = loaderData;
  const problem = actionData?.ok === false ? actionData.problem : undefined;
  const paying = useNavigation().state === "submitting";
  // Paid: what this checkout bought leaves the cart that made it (in this tab and every other).
  useEffect(() => {
    if (orderNumber) updateCart((cart) => checkoutPaid(cart, params.id));
  }, [orderNumber, params.id]);
  useRecheckWhile(keys !== null && keys.keys.length === 0 && keys.waiting === 0 && keys.renewals.length === 0);
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
              <span className="font-semibold whitespace-nowrap">{formatMoney(line.price)}</span>
            </li>
          ))}
        </ul>
        {discount ? (
          <p className="flex justify-between gap-4 border-t border-line py-3 text-sm text-green-400">
            <span>
              Discount <span className="font-mono">{discount.code}</span> {`(${discount.percent}% off)`}
            </span>
            <span className="font-semibold whitespace-nowrap">−{formatMoney(discount.amount)}</span>
          </p>
        ) : null}
        {credit ? (
          <p className="flex justify-between gap-4 border-t border-line py-3 text-sm text-green-400">
            <span>{credit.label}</span>
            <span className="font-semibold whitespace-nowrap">−{formatMoney(credit.amount)}</span>
          </p>
        ) : null}
        <p className="mt-4 flex justify-between border-t border-line pt-4 font-bold">
          <span>Total</span>
          <span>{formatMoney(total)}</span>
        </p>
        {orderNumber ? (
          <>
            <p className="mt-6 flex items-center gap-2 text-green-400" role="status">
              <CheckCircle className="size-5" aria-hidden />{" "}
              {renewsLicence ? "Paid. Your licence is being extended: same key, same PC." : "Paid. Your key is on its way to your e-mail."}
            </p>
            {keys ? <OrderKeys keys={keys} renewing={renewsLicence} /> : null}
          </>
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
