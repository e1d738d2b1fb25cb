// What the quick jump found, as the results page and the box's list show it: a section a kind, each
// result with its words and the back-office page it opens, and whether the query named it exactly.
import { customerHref } from "./customers/customer-badges";
import { LICENCES_PATH } from "./licence-lookup";
import { LICENCE_STATE_LABEL, maskKey } from "~/lib/licences";
import { ORDER_STATE_LABEL, ORDERS_PATH, type OrderRow, orderPath, SOURCE_LABEL } from "~/lib/orders";
import { type QuickJumpHit, type QuickJumpRecords, type QuickJumpSection, RECORD_KINDS, type RecordKind } from "~/lib/quick-jump";

const heading = (kind: RecordKind) => RECORD_KINDS.find((k) => k.kind === kind)!.heading;
const same = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase();

/** "#1001", "1001", "crypto-ab12" and "m-3" all name their order exactly; a key or an e-mail does not. */
const namesOrder = (order: OrderRow, q: string) => same(order.number, q) || same(order.number, `#${q}`) || same(order.reference, q);

const orderHit = (order: OrderRow, q: string): QuickJumpHit => ({
  kind: "order",
  label: `Order ${order.number}`,
  detail: `${order.email} · ${SOURCE_LABEL[order.source]} · ${ORDER_STATE_LABEL[order.state] ?? order.state}`,
  href: orderPath(order),
  exact: namesOrder(order, q),
});

/** The sections for what `records` holds, in the box's order: pages first (they are few), then records. */
export function quickJumpSections(q: string, records: QuickJumpRecords, pages: QuickJumpHit[]): QuickJumpSection[] {
  const search = (path: string) => `${path}?q=${encodeURIComponent(q)}`;
  const sections: QuickJumpSection[] = [];
  if (pages.length > 0) sections.push({ kind: "page", heading: "Pages", hits: pages, more: null });
  if (records.orders) {
    sections.push({
      kind: "order",
      heading: heading("order"),
      hits: records.orders.rows.map((order) => orderHit(order, q)),
      more: records.orders.more ? search(ORDERS_PATH) : null,
    });
  }
  if (records.customers) {
    const hits = records.customers.rows.map((customer): QuickJumpHit => ({
      kind: "customer",
      label: customer.username ?? customer.email,
      detail: customer.id ? customer.email : `${customer.email} · no account`,
      href: customerHref(customer),
      exact: same(customer.email, q) || same(customer.username, q),
    }));
    sections.push({
      kind: "customer",
      heading: heading("customer"),
      hits,
      more: records.customers.more ? search("/dashboard/customers") : null,
    });
  }
  if (records.licences) {
    const hits = records.licences.map((licence): QuickJumpHit => ({
      kind: "licence",
      label: `${licence.product} · ${maskKey(licence.key)}`,
      detail: `${LICENCE_STATE_LABEL[licence.state]} · ${licence.ownerEmail}`,
      href: `${LICENCES_PATH}?key=${encodeURIComponent(licence.key)}`,
      exact: true,
    }));
    sections.push({ kind: "licence", heading: heading("licence"), hits, more: null });
  }
  return sections;
}
