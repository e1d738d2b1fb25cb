// How to pay a crypto order: the amount in the coin, the order's own address, a QR code and an
// "Open in wallet" link (BIP21), each with a copy button, and the time the quote has left. Shown
// in the product page's crypto dialog and on the tracker.
import { formatCoin, type PaymentDetails } from "~/lib/crypto-orders";
import { formatUsd } from "~/lib/format";
import { copyText } from "./copy";
import { Copy } from "./icons";
import { useToast } from "./toaster";
import { buttonClass } from "./ui/button";
import { useNow } from "./use-now";

function CopyButton({ text, label, what }: { text: string; label: string; what: string }) {
  const { toast } = useToast();
  return (
    <button
      type="button"
      className="shrink-0 rounded p-1 text-muted hover:text-white"
      aria-label={label}
      onClick={() => copyText(text, toast, { title: "Copied!", description: `${what} copied to clipboard` })}
    >
      <Copy className="size-4" aria-hidden />
    </button>
  );
}

/** Minutes and seconds until `expiresAt`, ticking; nothing before hydration (the server's clock is not the visitor's). */
function TimeLeft({ expiresAt }: { expiresAt: number }) {
  const now = useNow();
  if (now === null) return null;
  const left = Math.max(0, Math.floor((expiresAt - now) / 1000));
  return (
    <p className="text-sm text-muted">
      {left > 0 ? (
        <>
          Time left: <span className="font-mono text-white">{`${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`}</span>
        </>
      ) : (
        "This quote has run out. A payment already on its way is still noticed."
      )}
    </p>
  );
}

export function PaymentBox({ order }: { order: PaymentDetails }) {
  if (order.dueUnits === null || order.paymentUri === null) return null;
  const amount = formatCoin(order.dueUnits);
  const partly = order.receivedUnits > 0;
  return (
    <div className="space-y-3 rounded-lg border border-line bg-panel-2 p-3 text-sm">
      <div className="flex flex-col items-center gap-3 sm:flex-row sm:items-start">
        {order.qr ? (
          <img
            src={order.qr}
            alt={`QR code to pay ${amount} ${order.coin} to this order's address`}
            width={160}
            height={160}
            className="size-40 shrink-0 rounded bg-white"
          />
        ) : null}
        <div className="min-w-0 flex-1 space-y-3">
          <div>
            <p className="text-muted">{partly ? "Still due" : "Send exactly"}</p>
            <p className="flex items-center gap-2 font-mono text-lg font-semibold">
              {amount} {order.coin}
              <CopyButton text={amount} label="Copy amount" what="Amount" />
            </p>
            <p className="text-xs text-muted">
              {formatUsd(order.amountCents)}
              {order.rateCents ? ` at ${formatUsd(order.rateCents)} per ${order.coin}` : ""}
              {order.rateIsDemo ? " (demo rate, for trying the shop locally)" : ""}
            </p>
          </div>
          <div>
            <p className="text-muted">To this {order.coin} address (for this order only)</p>
            <p className="flex items-center gap-2">
              <code className="min-w-0 flex-1 break-all">{order.walletAddress}</code>
              <CopyButton text={order.walletAddress} label="Copy wallet address" what="Wallet address" />
            </p>
          </div>
        </div>
      </div>
      <div className="flex items-center gap-2">
        <a href={order.paymentUri} className={buttonClass("primary", "md", "flex-1")}>
          Open in wallet
        </a>
        <CopyButton text={order.paymentUri} label="Copy payment link" what="Payment link" />
      </div>
      {order.expiresAt ? <TimeLeft expiresAt={order.expiresAt} /> : null}
    </div>
  );
}
