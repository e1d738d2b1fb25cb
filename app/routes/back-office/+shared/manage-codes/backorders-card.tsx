// "Backorders (n)": paid order units that found no code, waiting for stock of their variant.
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { Card } from "~/components/ui/card";
import { ScrollList } from "./scroll-list";

export interface Backorder {
  id: number;
  variantTitle: string;
  orderId: string;
  orderName: string | null;
  customerEmail: string;
  createdAt: number;
}

export function BackordersCard({ backorders }: { backorders: Backorder[] }) {
  return (
    <Card>
      <h2 className="text-lg font-bold">Backorders ({backorders.length})</h2>
      <p className="mt-1 text-sm text-muted">
        Paid order units that found no code. Adding codes for the variant fills them, oldest first, and e-mails each key.
      </p>
      <ScrollList label="Backorders">
        {backorders.length === 0 ? <li className="text-sm text-muted">Nothing is waiting.</li> : null}
        {backorders.map((b) => (
          <li key={b.id} className="rounded-md border border-yellow-500/30 bg-yellow-500/5 px-3 py-2 text-sm">
            <p className="font-semibold">{b.variantTitle}</p>
            <p className="text-muted">
              <OrderRef name={b.orderName} id={b.orderId} showId /> · {b.customerEmail} · waiting since <LocalTime ms={b.createdAt} />
            </p>
          </li>
        ))}
      </ScrollList>
    </Card>
  );
}
