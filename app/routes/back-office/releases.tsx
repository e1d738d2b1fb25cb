// /dashboard/releases, the one place downloads are uploaded: staff upload each product's releases
// (in parts, straight into R2), see each one's SHA-256, and publish, yank or discard them.
// Capability releases.manage, checked by this page's middleware for the page and the upload steps
// nested under it.
import { useFetcher } from "react-router";
import { Package } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { useResultToast } from "~/components/use-result-toast";
import { answer, answerInvalid } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import type { Answer } from "~/lib/answer";
import { BRAND } from "~/lib/brand";
import { formatFileSize } from "~/lib/format";
import { changeReleaseSchema } from "~/lib/schemas/releases";
import { allReleases, changeRelease, discardRelease } from "~/server/releases/release-uploads.server";
import { plansByProduct } from "~/server/catalogue/catalogue.server";
import { listEntitlements } from "~/server/catalogue/entitlements.server";
import { ReleaseUploadCard } from "./+shared/releases/release-upload-card";
import type { Route } from "./+types/releases";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("releases.manage")];

export const meta: Route.MetaFunction = () => [{ title: `Releases | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db, catalogue } = app(context);
  const [releases, entitlements, products] = await Promise.all([allReleases(db), listEntitlements(db), plansByProduct(catalogue)]);
  return {
    releases: releases.map(({ id, product, version, channel, entitlement, fileName, size, sha256, state, createdAt, publishedAt }) => ({
      id,
      product,
      version,
      channel,
      entitlement,
      fileName,
      size,
      sha256,
      state,
      createdAt,
      publishedAt,
    })),
    entitlements: entitlements.map(({ name, label }) => ({ name, label })),
    // What a release can be a build of: the catalogue's products, by the title licences name.
    products: [...products.keys()],
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "release", changeReleaseSchema);
  if (!submission.ok) return answerInvalid(submission);
  const { db, env } = app(context);
  const { intent, releaseId } = submission.value;
  const titles = { conflict: "Not changed" };
  if (intent === "discard") {
    return answer(await discardRelease(db, env.DOWNLOADS, submission.viewer, releaseId), {
      intent,
      titles,
      success: ({ version }) => ({ title: "Discarded", description: `${version} is gone` }),
    });
  }
  return answer(await changeRelease(db, submission.viewer, releaseId, intent), {
    intent,
    titles,
    success: ({ product, version, channel }) => ({
      title: intent === "publish" ? "Published" : "Yanked",
      description: `${product} ${version} on ${channel}`,
    }),
  });
}

const STATE_TONE: Record<string, BadgeTone> = { uploading: "yellow", ready: "orange", published: "green", yanked: "gray" };
const CHANGES: Record<string, ("publish" | "yank" | "discard")[]> = {
  uploading: ["discard"],
  ready: ["publish", "discard"],
  published: ["yank"],
  yanked: ["publish"],
};
const CHANGE_LABEL = { publish: "Publish", yank: "Yank", discard: "Discard" };

type Row = Route.ComponentProps["loaderData"]["releases"][number];

function ReleaseRow({ release }: { release: Row }) {
  const fetcher = useFetcher<Answer>();
  useResultToast(fetcher);
  return (
    <li className="rounded-md border border-line px-3 py-3">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-semibold break-all">
          {release.product} {release.version}
        </span>
        <Badge tone={release.channel === "beta" ? "orange" : "gray"}>{release.channel}</Badge>
        <Badge tone={STATE_TONE[release.state]}>{release.state}</Badge>
        {release.entitlement ? <Badge tone="gray">needs {release.entitlement}</Badge> : null}
      </div>
      <p className="mt-1 text-xs wrap-anywhere text-muted">
        {release.fileName} · {formatFileSize(release.size)} · <LocalTime ms={release.publishedAt ?? release.createdAt} format="datetime" />
      </p>
      {release.sha256 ? <p className="mt-1 font-mono text-xs break-all">SHA-256 {release.sha256}</p> : null}
      <fetcher.Form method="post" className="mt-2 flex flex-wrap gap-2">
        <input type="hidden" name="releaseId" value={release.id} />
        {CHANGES[release.state]?.map((change) => (
          <Button
            key={change}
            type="submit"
            name="intent"
            value={change}
            variant={change === "publish" ? "primary" : "outline"}
            disabled={fetcher.state !== "idle"}
            aria-label={`${CHANGE_LABEL[change]} ${release.product} ${release.channel} ${release.version}`}
          >
            {CHANGE_LABEL[change]}
          </Button>
        ))}
      </fetcher.Form>
    </li>
  );
}

export default function Releases({ loaderData }: Route.ComponentProps) {
  const { releases, entitlements, products } = loaderData;
  return (
    <div className="space-y-6">
      <h1 className="flex items-center gap-2 text-3xl font-black">
        <Package className="size-7 text-accent" aria-hidden /> Releases
      </h1>
      <p className="text-sm text-muted">
        The newest published version of a product on each channel is what its members and the program get as latest. Yanked releases are
        hidden and kept. This is where every download is uploaded.
      </p>
      <ReleaseUploadCard products={products} entitlements={entitlements} />
      <Card>
        <h2 className="text-lg font-bold">All releases</h2>
        {releases.length === 0 ? (
          <p className="mt-2 text-sm text-muted">No releases yet: upload the first one above.</p>
        ) : (
          <ul className="mt-3 space-y-2">
            {releases.map((release) => (
              <ReleaseRow key={release.id} release={release} />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
