// Restocking: the admin's new codes for a catalogue variant go into stock, then straight to the
// order units waiting for that variant; and the admin's deletions of codes still in stock. Both
// end with the variant's low-stock check. The codes themselves are written by keys/stock.server.
import { fail, ok, type Result } from "~/lib/result";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import type { MailingDeps } from "../platform/mail.server";
import { fillBackordersAndNotify } from "./fulfil-order.server";
import { type AddedCodes, addCodes, deleteAvailableCode } from "../keys/stock.server";
import { checkLowStock } from "../keys/stock-alerts.server";

export type Restocked = AddedCodes & { variantTitle: string; backordersFilled: number };

export async function stockCodes(
  deps: MailingDeps,
  catalogue: Catalogue,
  variantId: string,
  text: string,
  now = Date.now(),
): Promise<Result<Restocked>> {
  const variant = (await allVariants(catalogue)).find((v) => v.variant.id === variantId);
  if (!variant) return fail("invalid", "That variant is not in the catalogue", { field: "variantId" });
  const added = await addCodes(deps.db, { id: variantId, title: variant.title }, text, now);
  if (!added.ok) return added;
  const filled = await fillBackordersAndNotify(deps, variantId, now);
  // Stock back above the threshold re-arms the low-stock alert (or, if the waiting orders took it
  // all, the shortage is alerted).
  await checkLowStock(deps, { id: variantId, title: variant.title }, now);
  return ok({ ...added.value, variantTitle: variant.title, backordersFilled: filled.length });
}

/** An admin deletes a code still in stock; stock going down to the variant's threshold alerts. */
export async function removeAvailableCode(deps: MailingDeps, id: number, now = Date.now()): Promise<Result> {
  const deleted = await deleteAvailableCode(deps.db, id);
  if (!deleted.ok) return deleted;
  await checkLowStock(deps, deleted.value, now);
  return ok();
}
