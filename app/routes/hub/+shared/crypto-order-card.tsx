// A crypto order as its buyer tracks it: where it stands in their words, what to pay and where,
// what the chain shows, and the key (or the balance top-up) once the order is complete.
import { Link } from "~/components/link";
import { type CryptoOrderView, formatCoin } from "~/lib/crypto-orders";
import { CRYPTO_STATUS_LABEL, type CryptoStatus } from "~/lib/orders";
import { formatUsd } from "~/lib/format";
import { copyText } from "~/components/copy";
import { Ban, CheckCircle, Clock, Copy, Hourglass } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { PaymentBox } from "~/components/payment-box";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";

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

export const STATUS_STYLE: Record<CryptoStatus, { icon: typeof Clock; tone: "yellow" | "blue" | "green" | "red" }> = {
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
export const WAITING: CryptoStatus[] = ["pending", "underpaid", "processing"];

/** One sentence on where the order stands, in the buyer's words. */
function StatusLine({ order }: { order: CryptoOrderView }) {
  const coins = (units: number) => `${formatCoin(units)} ${order.coin}`;
  switch (order.status) {
    case "pending":
      return (
        <p className="text-sm text-yellow-200">
          Please complete your payment and we will verify it shortly. This page updates by itself once it shows up on chain.
        </p>
      );
    case "underpaid":
      return (
        <p className="text-sm text-yellow-200">
          We received {coins(order.receivedUnits)} of {coins(order.amountUnits ?? 0)}. Send the remaining {coins(order.dueUnits ?? 0)} to
          the same address before the time runs out.
        </p>
      );
    case "processing":
      return order.paid ? (
        <p className="text-sm text-sky-200">
          {order.purpose === "top-up"
            ? "Payment confirmed. Your balance is being topped up."
            : "Payment confirmed. Your key is on its way."}
        </p>
      ) : (
        <p className="text-sm text-sky-200">
          Payment received. Waiting for{" "}
          {order.confirmationsNeeded === 1 ? "its confirmation" : `${order.confirmationsNeeded} confirmations`} on chain (
          {order.confirmations} of {order.confirmationsNeeded} so far).
        </p>
      );
    case "submitted":
      return <p className="text-sm text-sky-200">Your payment was submitted. Our support team is verifying it now.</p>;
    case "paid-late":
      return (
        <p className="text-sm text-yellow-200">
          Your payment arrived after the quote ran out. Our team will review it and either complete your order or refund you.
        </p>
      );
    case "complete":
      return null;
    default:
      return (
        <p className="text-sm text-red-300">
          {order.status === "expired"
            ? order.receivedUnits > 0
              ? `The quote ran out with ${coins(order.receivedUnits)} of ${coins(order.amountUnits ?? 0)} received. Our team will review it.`
              : `This order expired before a payment arrived and no key will be delivered.${order.watchedLate ? " If you sent money just now, keep this page open: it shows here within a minute." : ""}`
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

/** What the buyer sent beyond the amount, and what becomes of it. */
function Overpaid({ order, overpaid }: { order: CryptoOrderView; overpaid: NonNullable<CryptoOrderView["overpaid"]> }) {
  const about = overpaid.cents === null ? "" : ` (about ${formatUsd(overpaid.cents)} at the quoted rate)`;
  return (
    <p className="rounded-lg border border-yellow-500/40 bg-yellow-500/10 p-3 text-sm text-yellow-100">
      You sent {formatCoin(overpaid.units)} {order.coin} more than was due{about}.{" "}
      {overpaid.handled ? (
        "Our support team has dealt with the difference."
      ) : (
        <>
          Our support team will refund it to you or credit it to your account;{" "}
          <Link to="/support" className="underline hover:text-white">
            contact support
          </Link>{" "}
          with your order number to say which you prefer.
        </>
      )}
    </p>
  );
}

/** The looked-up order's card. */
export function CryptoOrderCard({ order }: { order: CryptoOrderView }) {
  const { toast } = useToast();
  const style = STATUS_STYLE[order.status];
  return (
    <Card className="space-y-5">
      <div className="flex flex-wrap items-center gap-3">
        <style.icon className="size-7 text-accent" aria-hidden />
        <Badge tone={style.tone}>{CRYPTO_STATUS_LABEL[order.status]}</Badge>
        <p className="ml-auto font-mono text-sm">{order.orderNumber}</p>
      </div>
      <div role="status" className="space-y-3">
        <StatusLine order={order} />
        {order.overpaid ? <Overpaid order={order} overpaid={order.overpaid} /> : null}
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
      ) : order.renewsLicence && !order.productCode ? (
        <div className="rounded-lg border border-accent/40 bg-accent/5 p-4">
          <p className="text-xs font-bold tracking-wider text-accent">YOUR LICENCE</p>
          <p className="mt-2 text-sm">
            {order.status === "complete" ? (
              <>
                Your licence was extended: same key, same PC.{" "}
                <Link to="/dashboard/subscriptions" className="text-accent underline">
                  See its new end under Subscriptions
                </Link>
              </>
            ) : order.paid && order.status !== "cancelled" ? (
              "Paid: your licence is being extended."
            ) : (
              "This order renews your licence: once the payment is confirmed, the time is added to it (same key, no new key)."
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
                <button
                  type="button"
                  className="rounded p-1 text-muted hover:text-white"
                  aria-label="Copy product key"
                  onClick={() => copyText(order.productCode!, toast, { title: "Code copied to clipboard!" })}
                >
                  <Copy className="size-4" aria-hidden />
                </button>
              </p>
            ) : order.keyHeldBack ? (
              <p className="mt-2 text-sm text-muted">
                Shown to the buyer only.{" "}
                <Link to={`/dashboard/orders/crypto/${encodeURIComponent(order.orderNumber)}`} className="text-accent underline">
                  Reveal it on the order's page
                </Link>{" "}
                (recorded in the audit log).
              </p>
            ) : (
              <p className="mt-2 text-muted">Processing...</p>
            )
          ) : (
            <p className="mt-2 text-sm text-muted">
              {order.paid && order.status !== "cancelled" ? "Your key appears here in a moment." : KEY_PENDING[order.status]}
            </p>
          )}
        </div>
      )}
      <p className="text-xs text-muted">
        Created <LocalTime ms={order.createdAt} format="datetime" /> · Updated <LocalTime ms={order.updatedAt} format="datetime" />
      </p>
    </Card>
  );
}
