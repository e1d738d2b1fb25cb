// GET /dashboard/disputes/:id/evidence.txt: a dispute's evidence as a plain-text file for Shopify's
// dispute form (disputes.view). Audited, as every export is.
import { data } from "react-router";
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { textFileResponse } from "~/http/text-file.server";
import { BRAND } from "~/lib/brand";
import { disputeEvidence, evidenceText } from "~/server/disputes/evidence.server";
import type { KeyWatchNamespace } from "~/server/licences/sharing.server";
import { audit } from "~/server/platform/audit.server";
import type { Route } from "./+types/disputes.evidence";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("disputes.view")];

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const evidence = await disputeEvidence(db, env.KEY_WATCH as unknown as KeyWatchNamespace, params.id);
  if (!evidence) throw data("No such dispute", { status: 404 });
  await audit(
    db,
    currentViewer(context).id,
    "export.dispute-evidence",
    `shopify:${evidence.dispute.orderId}`,
    { dispute: params.id },
    clientAddress(request),
  );
  return textFileResponse(evidenceText(evidence, BRAND), `dispute-${params.id}-evidence.txt`);
}
