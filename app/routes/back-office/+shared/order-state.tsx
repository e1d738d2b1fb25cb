// An order's state as a badge, and its total in its currency: shared by the order list and the order page.
import { formatUsd } from "~/lib/format";
import { ORDER_STATE_LABEL, type OrderRow } from "~/lib/orders";
import { Badge, type BadgeTone } from "~/components/ui/badge";

const STATE_TONE: Record<string, BadgeTone> = {
  paid: "green",
  complete: "green",
  pending: "yellow",
  underpaid: "yellow",
  processing: "blue",
  submitted: "blue",
  refunded: "red",
  cancelled: "red",
  expired: "gray",
  "paid-late": "yellow",
};

export function OrderStateBadge({ state }: { state: string }) {
  return <Badge tone={STATE_TONE[state] ?? "gray"}>{ORDER_STATE_LABEL[state] ?? state}</Badge>;
}

export const orderTotal = (order: Pick<OrderRow, "totalCents" | "currency">) =>
  order.currency === "USD" ? formatUsd(order.totalCents) : `${(order.totalCents / 100).toFixed(2)} ${order.currency}`;
