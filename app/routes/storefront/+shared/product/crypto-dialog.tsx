// "Pay with Cryptocurrency": opening it creates (or reuses) a pending order on the server in the
// chosen coin, which quotes the amount and gives the order an address of its own; choosing the
// other coin does the same for that coin. The buyer pays, and the tracker follows the payment.
import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { Link } from "~/components/link";
import type { ProductVariant } from "~/lib/catalogue";
import type { CryptoCoin, CryptoOrderAnswer } from "~/lib/crypto-orders";
import { copyText } from "~/components/copy";
import { Copy } from "~/components/icons";
import { PaymentBox } from "~/components/payment-box";
import { useToast } from "~/components/toaster";
import { buttonClass } from "~/components/ui/button";
import { Dialog } from "~/components/ui/dialog";

const COIN_NAME: Record<CryptoCoin, string> = { BTC: "Bitcoin (BTC)", LTC: "Litecoin (LTC)" };

export function CryptoDialog({
  variant,
  coins,
  open,
  onClose,
}: {
  variant: ProductVariant;
  coins: readonly CryptoCoin[];
  open: boolean;
  onClose: () => void;
}) {
  const fetcher = useFetcher<CryptoOrderAnswer>();
  const { toast } = useToast();
  const { submit } = fetcher;
  const [coin, setCoin] = useState<CryptoCoin>(coins[0] ?? "BTC");

  // Asked once per opening and coin: the dialog is drawn already open on its first click, and an
  // effect run twice on mounting (React's strict mode) would create a second pending order.
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (!open) {
      asked.current = null;
      return;
    }
    const key = `${variant.id}:${coin}`;
    if (asked.current === key) return;
    asked.current = key;
    void submit({ variantId: variant.id, coin }, { method: "post", action: "/api/crypto-orders" });
  }, [open, variant.id, coin, submit]);

  const result = fetcher.data;
  const order = result?.ok ? result.order : null;
  const busy = fetcher.state !== "idle";

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Pay with Cryptocurrency"
      description="Pay with Bitcoin or Litecoin. Your key is sent once the payment is confirmed on chain."
    >
      {coins.length > 1 ? (
        <div role="radiogroup" aria-label="Coin" className="mb-4 grid grid-cols-2 gap-2 text-sm">
          {coins.map((choice) => (
            <button
              key={choice}
              type="button"
              role="radio"
              aria-checked={coin === choice}
              disabled={busy}
              onClick={() => setCoin(choice)}
              className={`rounded-lg border-2 px-3 py-2 font-semibold ${coin === choice ? "border-accent bg-accent/10" : "border-line hover:border-accent/60"}`}
            >
              {COIN_NAME[choice]}
            </button>
          ))}
        </div>
      ) : null}
      {busy && order?.coin !== coin ? (
        <p className="text-sm text-muted" role="status">
          Creating your order...
        </p>
      ) : null}
      {result && !result.ok ? (
        <p role="alert" className="text-sm text-red-400">
          {result.message}
        </p>
      ) : null}
      {order && order.coin === coin ? (
        <div className="space-y-4 text-sm">
          <div>
            <p className="text-muted">Order number</p>
            <p className="flex items-center gap-2 font-mono text-base font-semibold">
              {order.orderNumber}
              <button
                type="button"
                className="rounded p-1 text-muted hover:text-white"
                aria-label="Copy order number"
                onClick={() => copyText(order.orderNumber, toast, { title: "Copied!", description: "Order number copied to clipboard" })}
              >
                <Copy className="size-4" aria-hidden />
              </button>
            </p>
            <p className="mt-1 text-muted">
              {order.productTitle} - {order.variantTitle}
            </p>
          </div>
          <PaymentBox order={order} />
          <ol className="list-decimal space-y-1 pl-5 text-muted">
            <li>Send the amount in {order.coin} to the address above, before the time runs out.</li>
            <li>The Crypto Tracker shows your payment as soon as it is on chain, and its confirmations.</li>
            <li>Once it is confirmed, your key appears on the tracker and arrives by e-mail.</li>
          </ol>
          <Link
            to={`/dashboard/crypto-tracker?order=${encodeURIComponent(order.orderNumber)}`}
            className={buttonClass("primary", "md", "w-full")}
          >
            Go to Crypto Tracker
          </Link>
        </div>
      ) : null}
    </Dialog>
  );
}
