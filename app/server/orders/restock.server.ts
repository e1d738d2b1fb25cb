// Restocking: the admin's new codes for a catalogue variant go into stock, then straight to the
// order units waiting for that variant; and the admin's deletions of codes still in stock. Both
// end with the variant's low-stock check. The codes themselves are written by keys/stock.server.
import { fail, ok, type Result } from "~/lib/result";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import type { MailingDeps } from "../platform/mail.server";
import { fillBackordersAndNotify } from "./fulfil-order.server";
import { type AddedCodes, addCodes, deleteAvailableCode } from "../keys/stock.server";
import { checkLowStock } from "../keys/stock-alerts.server";
import { deleteStockAsPreviewed, undoStockDeletion } from "../keys/bulk-stock.server";
import type { Viewer } from "~/lib/viewer";

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

/** A bulk deletion of unsold codes confirmed (decision 104); stock going down to the threshold alerts. */
export async function removeCodesInBulk(
  deps: MailingDeps,
  admin: Viewer,
  token: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ deleted: number; variantTitle: string }>> {
  const deleted = await deleteStockAsPreviewed(deps.db, admin, token, ip, now);
  if (!deleted.ok) return deleted;
  await checkLowStock(deps, deleted.value.variant, now);
  return ok({ deleted: deleted.value.deleted, variantTitle: deleted.value.variant.title });
}

/**
 * A bulk deletion undone: its codes are back in stock, unsold, so the order units waiting for the
 * variant get them as they would get newly stocked codes.
 */
export async function restoreCodesInBulk(
  deps: MailingDeps,
  admin: Viewer,
  token: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ restored: number; skipped: number; variantTitle: string; backordersFilled: number }>> {
  const undone = await undoStockDeletion(deps.db, admin, token, ip, now);
  if (!undone.ok) return undone;
  const { variant, restored, skipped } = undone.value;
  const filled = await fillBackordersAndNotify(deps, variant.id, now);
  await checkLowStock(deps, variant, now);
  return ok({ restored, skipped, variantTitle: variant.title, backordersFilled: filled.length });
}
