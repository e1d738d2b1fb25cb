// GET /dashboard/resell/keys.csv: every key the signed-in reseller generated, with its licence, as
// a CSV streamed page by page. Only the viewer's own keys: the dashboard's guard signs them in first.
import { app } from "~/http/context.server";
import { csvResponse } from "~/http/csv.server";
import { currentViewer } from "~/http/guards.server";
import { exportResellerKeys } from "~/server/resellers/reseller-panel.server";
import { exportFilename } from "~/server/platform/csv.server";
import type { Route } from "./+types/resell.keys-csv";

export function loader({ context }: Route.LoaderArgs) {
  return csvResponse(exportResellerKeys(app(context).db, currentViewer(context).id), exportFilename("reseller-keys"));
}
