// /docs/licence-api: the licence API and its SDKs for the shop's developer, served from the same
// docs/licence-api.md the repository holds (linked from the staff's Licences page). The file is a
// static asset the Worker reads, not text it carries (decision 119).
import licenceApiUrl from "../../../docs/licence-api.md?url&no-inline";
import { Prose } from "~/components/prose";
import { BRAND } from "~/lib/brand";
import { publicPageHeaders } from "~/http/edge-cache.server";
import type { Route } from "./+types/licence-api-docs";
import { onFirstUse } from "~/server/platform/on-first-use.server";
import { staticTextOf } from "~/http/context.server";

export const headers = publicPageHeaders;

// The Markdown parser is loaded with the first document shown, not at every start (decision 107).
const markdownParser = onFirstUse(() => import("~/server/platform/markdown.server"));

export const meta: Route.MetaFunction = () => [
  { title: `Licence API and SDKs | ${BRAND}` },
  {
    name: "description",
    content:
      "How the shop's program checks its licence: the signed licence API, offline leases, the C++ and TypeScript SDKs and their conformance vectors.",
  },
];

export async function loader({ request, context }: Route.LoaderArgs) {
  const [guide, { renderMarkdown }] = await Promise.all([staticTextOf(context, request)(licenceApiUrl), markdownParser()]);
  return { html: renderMarkdown(guide) };
}

export default function LicenceApiDocs({ loaderData }: Route.ComponentProps) {
  // Rendered on the server from the repository's own file, raw HTML disabled (markdown.server.ts).
  return <Prose html={loaderData.html} className="mx-auto max-w-4xl px-4 py-12" />;
}
