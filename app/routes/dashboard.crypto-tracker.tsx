// /dashboard/crypto-tracker: look up a crypto order by number (only your own; admins see all),
// see how to pay it and what the chain shows, and collect the key once the order is complete.
// While the order waits for its payment, the page loads again every few seconds, and each load
// asks the chain (at most once per 10 s per order, however many trackers are open).
import { useEffect } from "react";
import { Form, Link, useNavigation, useSearchParams } from "react-router";
import { copyText } from "~/components/copy";
import { Ban, CheckCircle, Clock, Copy, Hourglass, Search } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { PaymentBox } from "~/components/payment-box";
import { useFormCheck } from "~/components/use-form-check";
import { useRecheckWhile } from "~/components/use-recheck";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, FieldError, inputClass } from "~/components/ui/field";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { CRYPTO_STATUS_LABEL, type CryptoStatus, formatCoin, orderLookupSchema } from "~/lib/crypto-orders";
import { checkForm } from "~/lib/form-schema";
import { formatUsd } from "~/lib/format";
import { cryptoOrderView, type CryptoOrderView, findOrderFor, ordersOf } from "~/server/payments/crypto-orders.server";
import { cryptoSetup } from "~/server/payments/crypto-setup.server";
import { checkOrder } from "~/server/payments/crypto-watch.server";
import type { Route } from "./+types/dashboard.crypto-tracker";

export const meta: Route.MetaFunction = () => [{ title: `Crypto Order Tracker | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const viewer = currentViewer(context);
  const number = new URL(request.url).searchParams.get("order");
  // Read after the order's chain check, so the list agrees with the card.
  const recent = async () => (await ordersOf(db, viewer.id)).map((o) => ({ orderNumber: o.orderNumber, status: o.status, createdAt: o.createdAt }));
  if (number === null) return { recent: await recent(), lookup: null };
  const lookup = checkForm(orderLookupSchema, { order: number });
  const found = lookup.ok ? await findOrderFor(db, viewer, lookup.value.order) : lookup;
  if (!found.ok) return { recent: await recent(), lookup: { ok: false as const, problem: found.problem } };
  const setup = cryptoSetup(env, db);
  const order = await checkOrder({ db, setup, queue: env.FULFILMENT_QUEUE }, found.value, { openOnly: true });
  return { recent: await recent(), lookup: { ok: true as const, order: cryptoOrderView(order, setup) } };
}

/** What the key box says while there is no key to show, by the order's state. */
const KEY_PENDING: Record<Exclude<CryptoStatus, "complete">, string> = {
  pending: "Your key appears here once your payment is confirmed on chain.",
  underpaid: "Your key appears here once the rest of the amount is paid and confirmed.",
  processing: "Your key appears here once your payment is confirmed on chain.",
  expired: "None: this order expired before it was paid.",
  "paid-late": "Your payment arrived after the quote ran out; our team is reviewing it.",
  submitted: "Your key appears here as soon as our support team has verified your payment.",
  cancelled: "None: this order was cancelled.",
};

const STATUS_STYLE: Record<CryptoStatus, { icon: typeof Clock; tone: "yellow" | "blue" | "green" | "red" }> = {
  pending: { icon: Hourglass, tone: "yellow" },
  underpaid: { icon: Hourglass, tone: "yellow" },
  processing: { icon: Clock, tone: "blue" },
  submitted: { icon: Clock, tone: "blue" },
  complete: { icon: CheckCircle, tone: "green" },
  expired: { icon: Ban, tone: "red" },
  "paid-late": { icon: Clock, tone: "yellow" },
  cancelled: { icon: Ban, tone: "red" },
};

/** States in which the tracker keeps looking: the payment or its key may arrive any moment. */
const WAITING: CryptoStatus[] = ["pending", "underpaid", "processing"];

/** One sentence on where the order stands, in the buyer's words. */
function StatusLine({ order }: { order: CryptoOrderView }) {
  const coins = (units: number) => `${formatCoin(units)} ${order.coin}`;
  switch (order.status) {
    case "pending":
      return <p className="text-sm text-yellow-200">Please complete your payment and we will verify it shortly. This page updates by itself once it shows up on chain.</p>;
    case "underpaid":
      return (
        <p className="text-sm text-yellow-200">
          We received {coins(order.receivedUnits)} of {coins(order.amountUnits ?? 0)}. Send the remaining {coins(order.dueUnits ?? 0)} to the same address before the time runs out.
        </p>
      );
    case "processing":
      return order.paid ? (
        <p className="text-sm text-sky-200">{order.purpose === "top-up" ? "Payment confirmed. Your balance is being topped up." : "Payment confirmed. Your key is on its way."}</p>
      ) : (
        <p className="text-sm text-sky-200">
          Payment received. Waiting for {order.confirmationsNeeded === 1 ? "its confirmation" : `${order.confirmationsNeeded} confirmations`} on chain ({order.confirmations} of {order.confirmationsNeeded} so far).
        </p>
      );
    case "submitted":
      return <p className="text-sm text-sky-200">Your payment was submitted. Our support team is verifying it now.</p>;
    case "paid-late":
      return <p className="text-sm text-yellow-200">Your payment arrived after the quote ran out. Our team will review it and either complete your order or refund you.</p>;
    case "complete":
      return null;
    default:
      return (
        <p className="text-sm text-red-300">
          {order.status === "expired"
            ? order.receivedUnits > 0
              ? `The quote ran out with ${coins(order.receivedUnits)} of ${coins(order.amountUnits ?? 0)} received. Our team will review it.`
              : "This order expired before a payment arrived and no key will be delivered."
            : "This order was cancelled and no key will be delivered."}{" "}
          If you paid for it,{" "}
          <Link to="/support" className="underline hover:text-white">
            contact support
          </Link>{" "}
          with your order number.
        </p>
      );
  }
}

export default function CryptoTracker({ loaderData }: Route.ComponentProps) {
  const { lookup, recent } = loaderData;
  const [searchParams] = useSearchParams();
  const { toast } = useToast();
  const navigation = useNavigation();
  const searching = navigation.state !== "idle" && navigation.formMethod === "GET";
  const search = useFormCheck(orderLookupSchema, { title: "Order Number Required" });

  const notFound = lookup && !lookup.ok && lookup.problem.code === "not-found" ? lookup.problem : null;
  useEffect(() => {
    if (notFound) toast({ title: "Order Not Found", description: notFound.message, variant: "destructive" });
  }, [notFound, toast]);
  // Any other problem with the number shows under it.
  const numberError = search.errors.order ?? (lookup && !lookup.ok && !notFound ? lookup.problem.message : undefined);

  const order = lookup?.ok ? lookup.order : null;
  const style = order ? STATUS_STYLE[order.status] : null;
  // Every 5 s for up to an hour: the server reads the chain at most every 10 s anyway.
  useRecheckWhile(order !== null && (WAITING.includes(order.status) || (order.paid && order.status !== "complete" && order.status !== "cancelled")), { everyMs: 5000, times: 720 });

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
          <div role="status">
            <StatusLine order={order} />
          </div>
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
              <dd>
                {order.amountUnits !== null ? `${formatCoin(order.amountUnits)} ` : ""}
                {order.coin}
              </dd>
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

          <PaymentBox order={order} />
          {order.payments.length > 0 ? (
            <div className="text-sm">
              <p className="text-muted">Seen on chain</p>
              <ul className="mt-1 space-y-1">
                {order.payments.map((payment) => (
                  <li key={payment.txid}>
                    <span className="font-mono break-all">{payment.txid}</span>{" "}
                    <span className="whitespace-nowrap text-muted">
                      · {formatCoin(payment.units)} {order.coin} · {payment.confirmed ? "confirmed" : "unconfirmed"}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}

          {order.purpose === "top-up" ? (
            <div className="rounded-lg border border-accent/40 bg-accent/5 p-4">
              <p className="text-xs font-bold tracking-wider text-accent">RESELLER BALANCE</p>
              <p className="mt-2 text-sm">
                {order.status === "complete" ? (
                  <>
                    {formatUsd(order.amountCents)} was added to your balance.{" "}
                    <Link to="/dashboard/resell" className="text-accent underline">
                      Open the reseller panel
                    </Link>
                  </>
                ) : (
                  `${formatUsd(order.amountCents)} is added to your balance once the payment is confirmed.`
                )}
              </p>
            </div>
          ) : (
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
          )}
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
