// /dashboard/downloads: the products' releases per channel, each downloadable or locked by the one
// download rule (decision 082): a live licence of the product that includes what the release needs.
// Staff upload releases on the Releases page.
import { Suspense } from "react";
import { Await } from "react-router";
import { AlertTriangle } from "~/components/icons";
import { Card } from "~/components/ui/card";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { downloaderOf } from "~/server/releases/download-access.server";
import { releaseShelves } from "~/server/releases/release-shelves.server";
import { ReleaseShelf } from "./+shared/release-shelf";
import type { Route } from "./+types/downloads";

export const meta: Route.MetaFunction = () => [{ title: `Downloads | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db, catalogue } = app(context);
  // The page shows what the download link will do: both follow the same rule.
  const downloader = await downloaderOf(db, currentViewer(context));
  const access: "staff" | "licensed" | "none" =
    downloader.kind === "staff" ? "staff" : downloader.licences.length > 0 ? "licensed" : "none";
  return {
    // Streamed: the page shows "Loading downloads..." until the releases are there.
    shelves: releaseShelves(db, downloader, catalogue),
    access,
  };
}

export default function Downloads({ loaderData }: Route.ComponentProps) {
  const { shelves, access } = loaderData;
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-black">Downloads</h1>
      {access === "staff" ? (
        <p role="status" className="text-sm text-muted">
          You manage releases: every release is yours to download, with or without a licence. New ones are uploaded on the Releases page.
        </p>
      ) : null}
      {access === "none" ? (
        <div
          role="status"
          className="flex items-start gap-3 rounded-lg border border-yellow-500/40 bg-yellow-500/10 p-4 text-sm text-yellow-100"
        >
          <AlertTriangle className="mt-0.5 size-5 shrink-0 text-yellow-400" aria-hidden />
          <div>
            <p className="font-semibold">No Active Subscription</p>
            <p className="mt-1 text-yellow-100/80">
              Every release needs an active licence of its product. Pick a plan under Subscriptions.
            </p>
          </div>
        </div>
      ) : null}
      <Suspense fallback={<p className="text-muted">Loading downloads...</p>}>
        <Await
          resolve={shelves}
          errorElement={
            <p role="alert" className="text-red-400">
              Failed to load downloads
            </p>
          }
        >
          {(loaded) =>
            loaded.length === 0 ? (
              <Card className="text-center">
                <p className="font-semibold">No Downloads Available</p>
                <p className="mt-1 text-sm text-muted">Check back after the next release.</p>
              </Card>
            ) : (
              <div className="space-y-3">
                {loaded.map((shelf) => (
                  <ReleaseShelf key={`${shelf.product}:${shelf.channel}`} shelf={shelf} />
                ))}
              </div>
            )
          }
        </Await>
      </Suspense>
    </div>
  );
}
