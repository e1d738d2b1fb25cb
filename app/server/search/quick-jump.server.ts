// The back office's quick jump: the orders, customers and licences one query names, through the
// same lookups their own pages use (the order list's search, the customer search, the licence
// page's key lookup), a few of each, and only the kinds the caller may see.
import { QUICK_JUMP_LIMIT, type QuickJumpRecords, type RecordKind } from "~/lib/quick-jump";
import { licenceForAdmin } from "../licences/licences.server";
import type { Db } from "../platform/db/client.server";
import { searchCustomers } from "../customers/customers.server";
import { listOrders } from "../orders/order-list.server";

/** What `q` names among the kinds in `kinds` (null for a kind not asked); nothing for an empty query. */
export async function quickJump(db: Db, q: string, kinds: readonly RecordKind[], licenceCooldownMs: number): Promise<QuickJumpRecords> {
  const asked = (kind: RecordKind) => q !== "" && kinds.includes(kind);
  const [orders, customers, licence] = await Promise.all([
    asked("order") ? listOrders(db, { q }, "", QUICK_JUMP_LIMIT) : null,
    asked("customer") ? searchCustomers(db, { q, cursor: "" }) : null,
    asked("licence") ? licenceForAdmin(db, q, licenceCooldownMs) : null,
  ]);
  return {
    orders: orders && (orders.ok ? { rows: orders.value.rows, more: orders.value.next !== null } : { rows: [], more: false }),
    customers: customers && { rows: customers.rows.slice(0, QUICK_JUMP_LIMIT), more: customers.rows.length > QUICK_JUMP_LIMIT },
    licences: asked("licence")
      ? licence
        ? [{ key: licence.key, product: licence.product, ownerEmail: licence.ownerEmail, state: licence.state }]
        : []
      : null,
  };
}
