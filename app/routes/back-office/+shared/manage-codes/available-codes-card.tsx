// "Available Codes (n)": unsold stock, filtered by variant, with Copy All, and a copy and a delete
// button per code. Deleting is confirmed first and posts to the page's stock route.
import { useFetcher } from "react-router";
import type { Answer } from "~/lib/answer";
import { copyText } from "~/components/copy";
import { Copy, Trash2 } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { ConfirmedAction } from "~/components/confirmed-action";
import { useResultToast } from "~/components/use-result-toast";
import { FilterForm, VariantFilter, type VariantOption } from "./code-filters";
import { ScrollList } from "./scroll-list";

// A row disappears once its code is deleted, so the rows' fetchers share a key and the card (which
// stays) reports the result.
const DELETE_FETCHER = "delete-code";

function DeleteCode({ id, code }: { id: number; code: string }) {
  const fetcher = useFetcher<Answer>({ key: DELETE_FETCHER });
  return (
    <ConfirmedAction
      fetcher={fetcher}
      action="/dashboard/manage-codes/stock"
      fields={{ intent: "delete", id: String(id) }}
      title="Delete this code?"
      cost={
        <>
          <span className="font-mono break-all text-zinc-100">{code}</span> leaves the stock for good: it can no longer be sold or handed
          out, and this cannot be undone.
        </>
      }
      confirmLabel="Delete code"
      busyLabel="Deleting..."
      trigger={(open) => (
        <button
          type="button"
          onClick={open}
          disabled={fetcher.state !== "idle"}
          className="rounded p-1.5 text-muted hover:text-red-400"
          aria-label={`Delete code ${code}`}
        >
          <Trash2 className="size-4" aria-hidden />
        </button>
      )}
    />
  );
}

/** Copies one code: on a phone the full code is easier to paste than to read out. */
function CopyCode({ code }: { code: string }) {
  const { toast } = useToast();
  return (
    <button
      type="button"
      onClick={() => copyText(code, toast, { title: "Code copied to clipboard!" })}
      className="rounded p-1.5 text-muted hover:text-white"
      aria-label={`Copy code ${code}`}
    >
      <Copy className="size-4" aria-hidden />
    </button>
  );
}

/** Unsold codes, the first of them as rows, and how many there are in all. */
export interface AvailableCodes {
  rows: { id: number; code: string; variantTitle: string }[];
  total: number;
}

export function AvailableCodesCard({
  codes,
  variants,
  variantId,
}: {
  codes: AvailableCodes;
  variants: VariantOption[];
  variantId: string;
}) {
  const { toast } = useToast();
  useResultToast(useFetcher<Answer>({ key: DELETE_FETCHER }));
  return (
    <Card>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="text-lg font-bold">Available Codes ({codes.total})</h2>
        <Button
          variant="outline"
          size="sm"
          disabled={codes.rows.length === 0}
          onClick={() =>
            copyText(codes.rows.map((r) => r.code).join("\n"), toast, {
              title: "Copied!",
              description: `${codes.rows.length} codes copied to clipboard`,
            })
          }
        >
          <Copy className="size-4" aria-hidden /> Copy All Codes
        </Button>
      </div>
      <FilterForm keep={["sold", "period", "tz"]} className="mt-3">
        <VariantFilter name="available" value={variantId} variants={variants} label="Filter available codes by variant" />
      </FilterForm>
      <ScrollList label="Available codes">
        {codes.rows.length === 0 ? <li className="text-sm text-muted">No available codes.</li> : null}
        {codes.rows.map((row) => (
          <li key={row.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border border-line bg-panel-2 px-3 py-2">
            {/* Whole, wrapping where it must: an admin reads and copies codes on a phone too. */}
            <div className="min-w-0 flex-1 basis-48">
              <p className="font-mono text-sm wrap-anywhere">{row.code}</p>
              <p className="text-xs break-words text-muted">{row.variantTitle}</p>
            </div>
            <div className="ml-auto flex items-center gap-1">
              <Badge tone="green">Available</Badge>
              <CopyCode code={row.code} />
              <DeleteCode id={row.id} code={row.code} />
            </div>
          </li>
        ))}
      </ScrollList>
    </Card>
  );
}
