// /dashboard/crypto-tracker: look up a crypto order by number (only your own; admins see all),
// submit the payment's transaction id, and collect the key once the order is complete.
import { useEffect } from "react";
import { Form, Link, useFetcher, useNavigation, useSearchParams } from "react-router";
import { copyText } from "~/components/copy";
import { Ban, CheckCircle, Clock, Copy, Hourglass, Search } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, FieldError, inputClass } from "~/components/ui/field";
import { answer, answerProblem } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { readSubmission } from "~/http/submission.server";
import { BRAND } from "~/lib/brand";
import { CRYPTO_STATUS_LABEL, type CryptoStatus, orderLookupSchema, submitPaymentSchema } from "~/lib/crypto-orders";
import { checkForm } from "~/lib/form-schema";
import { formatUsd } from "~/lib/format";
import { ok } from "~/lib/result";
import { cryptoOrderView, findOrderFor, ordersOf, submitTransaction } from "~/server/payments/crypto-orders.server";
import type { Route } from "./+types/dashboard.crypto-tracker";

export const meta: Route.MetaFunction = () => [{ title: `Crypto Order Tracker | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const viewer = currentViewer(context);
  const number = new URL(request.url).searchParams.get("order");
  const recent = (await ordersOf(db, viewer.id)).map((o) => ({ orderNumber: o.orderNumber, status: o.status, createdAt: o.createdAt }));
  if (number === null) return { recent, lookup: null };
  const lookup = checkForm(orderLookupSchema, { order: number });
  const found = lookup.ok ? await findOrderFor(db, viewer, lookup.value.order) : lookup;
  return {
    recent,
    lookup: found.ok ? { ok: true as const, order: cryptoOrderView(found.value) } : { ok: false as const, problem: found.problem },
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, submitPaymentSchema);
  if (!submission.ok) return answerProblem(submission.problem);
  const submitted = await submitTransaction(app(context).db, currentViewer(context), submission.value);
  // The answer goes to the browser: the order as its buyer may see it.
  return answer(submitted.ok ? ok(cryptoOrderView(submitted.value)) : submitted, {
    success: { title: "Payment Submitted", description: "Thanks! Our support team is verifying your payment." },
  });
}

/** What the key box says while there is no key to show, by the order's state. */
const KEY_PENDING: Record<Exclude<CryptoStatus, "complete">, string> = {
  pending: "Your key appears here once your payment has been received and verified.",
  submitted: "Your key appears here as soon as our support team has verified your payment.",
  cancelled: "None: this order was cancelled.",
};

const STATUS_STYLE: Record<CryptoStatus, { icon: typeof Clock; tone: "yellow" | "blue" | "green" | "red" }> = {
  pending: { icon: Hourglass, tone: "yellow" },
  submitted: { icon: Clock, tone: "blue" },
  complete: { icon: CheckCircle, tone: "green" },
  cancelled: { icon: Ban, tone: "red" },
};

export default function CryptoTracker({ loaderData }: Route.ComponentProps) {
  const { lookup, recent } = loaderData;
  const [searchParams] = useSearchParams();
  const { toast } = useToast();
  const navigation = useNavigation();
  const searching = navigation.state !== "idle" && navigation.formMethod === "GET";
  const payment = useFetcher<typeof action>();
  const sending = payment.state === "submitting";
  useResultToast(payment);
  const paymentCheck = useFormCheck(submitPaymentSchema, { title: "Error", answer: payment.data });
  const search = useFormCheck(orderLookupSchema, { title: "Order Number Required" });

  const notFound = lookup && !lookup.ok && lookup.problem.code === "not-found" ? lookup.problem : null;
  useEffect(() => {
    if (notFound) toast({ title: "Order Not Found", description: notFound.message, variant: "destructive" });
  }, [notFound, toast]);
  // Any other problem with the number shows under it.
  const numberError = search.errors.order ?? (lookup && !lookup.ok && !notFound ? lookup.problem.message : undefined);

  const order = lookup?.ok ? lookup.order : null;
  const style = order ? STATUS_STYLE[order.status] : null;

  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <h1 className="text-3xl font-black tracking-tight">CRYPTO ORDER TRACKER</h1>
      <Card>
        <Form method="get" className="flex flex-col gap-2 sm:flex-row" onSubmit={search.onSubmit}>
          <label htmlFor="order-number" className="sr-only">
            Order number
          </label>
          <input
            id="order-number"
            name="order"
            defaultValue={searchParams.get("order") ?? ""}
            placeholder="CRYPTO-xxxxxx"
            autoComplete="off"
            className={`${inputClass} font-mono sm:flex-1`}
            {...describedBy("order-number", { error: numberError })}
          />
          <Button type="submit" disabled={searching}>
            <Search className="size-4" aria-hidden /> {searching ? "Searching..." : "Search"}
          </Button>
        </Form>
        {numberError ? (
          <div role="alert" className="mt-3">
            <FieldError id="order-number" error={numberError} />
          </div>
        ) : null}
      </Card>

      {order && style ? (
        <Card className="space-y-5">
          <div className="flex flex-wrap items-center gap-3">
            <style.icon className="size-7 text-accent" aria-hidden />
            <Badge tone={style.tone}>{CRYPTO_STATUS_LABEL[order.status]}</Badge>
            <p className="ml-auto font-mono text-sm">{order.orderNumber}</p>
          </div>
          {order.status === "pending" ? <p className="text-sm text-yellow-200">Please complete your payment and we will verify it shortly.</p> : null}
          {order.status === "submitted" ? <p className="text-sm text-sky-200">Your payment was submitted. Our support team is verifying it now.</p> : null}
          {order.status === "cancelled" ? (
            <p className="text-sm text-red-300">
              This order was cancelled and no key will be delivered. If you already paid for it,{" "}
              <Link to="/support" className="underline hover:text-white">
                contact support
              </Link>{" "}
              with your order number.
            </p>
          ) : null}
          <dl className="grid gap-3 text-sm sm:grid-cols-2">
            <div>
              <dt className="text-muted">Product</dt>
              <dd>{order.productTitle}</dd>
            </div>
            <div>
              <dt className="text-muted">Variant</dt>
              <dd>{order.variantTitle}</dd>
            </div>
            <div>
              <dt className="text-muted">Amount</dt>
              <dd>{formatUsd(order.amountCents)}</dd>
            </div>
            <div>
              <dt className="text-muted">Crypto</dt>
              <dd>{order.coin}</dd>
            </div>
            <div className="sm:col-span-2">
              <dt className="text-muted">Wallet address</dt>
              <dd className="font-mono break-all">{order.walletAddress}</dd>
            </div>
            {order.transactionId ? (
              <div className="sm:col-span-2">
                <dt className="text-muted">Transaction ID</dt>
                <dd className="font-mono break-all">{order.transactionId}</dd>
              </div>
            ) : null}
          </dl>

          {order.status === "pending" ? (
            <payment.Form method="post" className="space-y-2" onSubmit={paymentCheck.onSubmit}>
              <input type="hidden" name="orderNumber" value={order.orderNumber} />
              <label htmlFor="transaction-id" className="block text-sm font-medium">
                Paid already? Enter your transaction ID
              </label>
              <div className="flex flex-col gap-2 sm:flex-row">
                <input
                  id="transaction-id"
                  name="transactionId"
                  required
                  maxLength={64}
                  autoComplete="off"
                  className={`${inputClass} font-mono sm:flex-1`}
                  {...describedBy("transaction-id", { error: paymentCheck.errors.transactionId })}
                />
                <Button type="submit" disabled={sending}>
                  {sending ? "Submitting..." : "Submit Payment"}
                </Button>
              </div>
              <FieldError id="transaction-id" error={paymentCheck.errors.transactionId} />
            </payment.Form>
          ) : null}

          <div className="rounded-lg border border-accent/40 bg-accent/5 p-4">
            <p className="text-xs font-bold tracking-wider text-accent">YOUR PRODUCT KEY</p>
            {order.status === "complete" ? (
              order.productCode ? (
                <p className="mt-2 flex items-center gap-2 font-mono text-lg">
                  {order.productCode}
                  <button type="button" className="rounded p-1 text-muted hover:text-white" aria-label="Copy product key" onClick={() => copyText(order.productCode!, toast, { title: "Code copied to clipboard!" })}>
                    <Copy className="size-4" aria-hidden />
                  </button>
                </p>
              ) : (
                <p className="mt-2 text-muted">Processing...</p>
              )
            ) : (
              <p className="mt-2 text-sm text-muted">{KEY_PENDING[order.status]}</p>
            )}
          </div>
          <p className="text-xs text-muted">
            Created <LocalTime ms={order.createdAt} format="datetime" /> · Updated <LocalTime ms={order.updatedAt} format="datetime" />
          </p>
        </Card>
      ) : null}

      {recent.length > 0 ? (
        <Card>
          <h2 className="font-bold">Your crypto orders</h2>
          <ul className="mt-3 divide-y divide-line text-sm">
            {recent.map((o) => (
              <li key={o.orderNumber} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
                <Link to={`?order=${encodeURIComponent(o.orderNumber)}`} className="font-mono text-accent hover:underline">
                  {o.orderNumber}
                </Link>
                <Badge tone={STATUS_STYLE[o.status].tone}>{CRYPTO_STATUS_LABEL[o.status]}</Badge>
                <LocalTime ms={o.createdAt} format="datetime" className="ml-auto whitespace-nowrap text-muted" />
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
    </div>
  );
}
