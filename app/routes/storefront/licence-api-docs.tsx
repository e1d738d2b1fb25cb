// /docs/licence-api: the licence API and its SDKs for the shop's developer, served from the same
// docs/licence-api.md the repository holds (linked from the staff's Licences page).
import licenceApi from "../../../docs/licence-api.md?raw";
import { BRAND } from "~/lib/brand";
import { publicPageHeaders } from "~/http/edge-cache.server";
import { renderMarkdown } from "~/server/platform/markdown.server";
import type { Route } from "./+types/licence-api-docs";

export const headers = publicPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: `Licence API and SDKs | ${BRAND}` },
  { name: "description", content: "How the shop's program checks its licence: the signed licence API, offline leases, the C++ and TypeScript SDKs and their conformance vectors." },
];

export function loader() {
  return { html: renderMarkdown(licenceApi) };
}

// The rendered document's elements, styled from the outside: it carries no classes of its own.
// Code and tables wrap rather than scroll, so a phone reads them without a scrolling region.
const PROSE = [
  "[&_h1]:text-3xl [&_h1]:font-black [&_h2]:mt-10 [&_h2]:text-2xl [&_h2]:font-bold [&_h3]:mt-8 [&_h3]:text-xl [&_h3]:font-bold",
  "[&_p]:mt-3 [&_p]:leading-relaxed [&_ul]:mt-3 [&_ul]:list-disc [&_ul]:pl-6 [&_ol]:mt-3 [&_ol]:list-decimal [&_ol]:pl-6 [&_li]:mt-1",
  "[&_pre]:mt-3 [&_pre]:rounded-lg [&_pre]:bg-black/40 [&_pre]:p-4 [&_pre]:text-sm [&_pre]:whitespace-pre-wrap [&_code]:font-mono [&_code]:break-words",
  "[&_table]:mt-3 [&_table]:w-full [&_table]:text-sm [&_th]:border-b [&_th]:border-white/20 [&_th]:py-1 [&_th]:pr-4 [&_th]:text-left",
  "[&_td]:border-b [&_td]:border-white/10 [&_td]:py-1 [&_td]:pr-4 [&_td]:align-top [&_a]:text-accent [&_a]:underline",
].join(" ");

export default function LicenceApiDocs({ loaderData }: Route.ComponentProps) {
  // Rendered on the server from the repository's own file, raw HTML disabled (markdown.server.ts).
  return <article className={`mx-auto max-w-4xl px-4 py-12 ${PROSE}`} dangerouslySetInnerHTML={{ __html: loaderData.html }} />;
}
