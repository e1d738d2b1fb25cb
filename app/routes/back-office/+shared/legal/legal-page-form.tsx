// One legal page's editor in the back office: its Markdown, saved with the page's name; the page
// shows the date it last changed and a link to it as buyers see it.
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { TextAreaField } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { formatDate } from "~/lib/format";
import { LEGAL_PAGES, type LegalSlug } from "~/lib/legal";
import { legalEditSchema } from "~/lib/schemas/legal";

export function LegalPageForm({
  slug,
  markdown,
  updatedAt,
  edited,
}: {
  slug: LegalSlug;
  markdown: string;
  updatedAt: number;
  edited: boolean;
}) {
  const fetcher = useFetcher();
  const { onSubmit, errors, busy } = useFetcherForm(fetcher, legalEditSchema, { title: "Please check the page" });
  const { title, path } = LEGAL_PAGES[slug];
  return (
    <Card>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="font-bold">{title}</h2>
        <a href={path} className="text-sm text-accent hover:underline">
          View {path}
        </a>
      </div>
      <p className="mt-1 text-xs text-muted">{edited ? `Last updated ${formatDate(updatedAt)}` : "The template: not edited yet"}</p>
      <fetcher.Form method="post" className="mt-4 space-y-3" onSubmit={onSubmit} noValidate>
        <input type="hidden" name="intent" value="save" />
        <input type="hidden" name="page" value={slug} />
        <TextAreaField
          label={`${title} (Markdown)`}
          name="markdown"
          rows={14}
          monospace
          defaultValue={markdown}
          hint="Markdown: # headings, **bold**, - lists, [links](https://…). HTML is shown as text."
          error={errors.markdown}
        />
        <Button type="submit" disabled={busy}>
          {busy ? "Saving..." : `Save ${title}`}
        </Button>
      </fetcher.Form>
    </Card>
  );
}
