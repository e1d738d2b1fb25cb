// GET /dashboard/affiliates/ledger.csv: every row of the affiliate ledger as a streamed CSV
// (admins: the export capability). Audited.
import { app } from "~/http/context.server";
import { csvResponse } from "~/http/csv.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { clientAddress } from "~/http/caller.server";
import { exportAffiliateLedger } from "~/server/affiliates/dashboard.server";
import { exportFilename } from "~/server/platform/csv.server";
import type { Route } from "./+types/affiliates.ledger-csv";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("export")];

export async function loader({ request, context }: Route.LoaderArgs) {
  const stream = await exportAffiliateLedger(app(context).db, { id: currentViewer(context).id, ip: clientAddress(request) });
  return csvResponse(stream, exportFilename("affiliate-ledger"));
}
