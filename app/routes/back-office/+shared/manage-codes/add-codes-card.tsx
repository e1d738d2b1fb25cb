// "Add New Codes": the admin pastes codes for a variant; new ones go into stock and fill any
// backorders of that variant. Posts to the page's stock route.
import { useRef } from "react";
import { useFetcher } from "react-router";
import { addCodesSchema } from "~/lib/schemas/stock";
import type { Answer } from "~/lib/answer";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, FieldError, SelectField } from "~/components/ui/field";
import { inputClass } from "~/components/ui/input-class";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import type { VariantOption } from "./code-filters";

const CODES_HINT = "Similar codes with different numbers are allowed (e.g. KEY-0001, KEY-0002). Exact duplicates are skipped.";

export function AddCodesCard({ variants }: { variants: VariantOption[] }) {
  const fetcher = useFetcher<Answer>();
  const formRef = useRef<HTMLFormElement>(null);
  useResultToast(fetcher, () => {
    const box = formRef.current?.elements.namedItem("codes") as HTMLTextAreaElement | null;
    if (box) box.value = "";
  });
  const { errors, onSubmit } = useFormCheck(addCodesSchema, { title: "Error", answer: fetcher.data });
  const busy = fetcher.state !== "idle";
  return (
    <Card>
      <h2 className="text-lg font-bold">Add New Codes</h2>
      <fetcher.Form ref={formRef} method="post" action="/dashboard/manage-codes/stock" className="mt-4 space-y-4" onSubmit={onSubmit}>
        <input type="hidden" name="intent" value="add" />
        <SelectField
          label="Variant"
          name="variantId"
          placeholder="Choose a variant..."
          options={variants.map((v) => ({ value: v.id, label: v.title }))}
          error={errors.variantId}
        />
        <div className="space-y-1.5">
          <label htmlFor="add-codes" className="text-sm font-medium">
            Product Codes (one per line)
          </label>
          <textarea
            id="add-codes"
            name="codes"
            rows={6}
            className={`${inputClass} h-auto py-2 font-mono`}
            {...describedBy("add-codes", { hint: CODES_HINT, error: errors.codes })}
          />
          <p id="add-codes-hint" className="text-xs text-muted">
            {CODES_HINT}
          </p>
          <FieldError id="add-codes" error={errors.codes} />
        </div>
        <Button type="submit" disabled={busy}>
          {busy ? "Adding..." : "Add Codes"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}
