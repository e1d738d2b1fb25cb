// The admin's key search: a GET form that opens the licence page for a key. The licence page shows
// it at the top, and the Manage Codes page offers it in a small card of its own.
import { Form } from "react-router";
import { Link } from "~/components/link";
import { licenceLookupSchema } from "~/lib/schemas/licences";
import { FileKey, Search } from "~/components/icons";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { useFormCheck } from "~/components/use-form-check";
import { useSearching } from "~/components/use-searching";

export const LICENCES_PATH = "/dashboard/licences";

export function LicenceLookup({ defaultKey = "", error }: { defaultKey?: string; error?: string }) {
  const { errors, onSubmit } = useFormCheck(licenceLookupSchema, { title: "Error" });
  const searching = useSearching(LICENCES_PATH);
  return (
    <Form method="get" action={LICENCES_PATH} onSubmit={onSubmit} className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <Field
        label="Licence key"
        name="key"
        defaultValue={defaultKey}
        required
        autoComplete="off"
        spellCheck={false}
        className="sm:flex-1"
        error={errors.key ?? error}
      />
      <Button type="submit" disabled={searching}>
        <Search className="size-4" aria-hidden /> {searching ? "Looking up..." : "Look up"}
      </Button>
    </Form>
  );
}

/** Manage Codes' way in to the licence page. */
export function LicencesCard() {
  return (
    <Card>
      <h2 className="flex items-center gap-2 text-lg font-bold">
        <FileKey className="size-5 text-accent" aria-hidden /> Licences
      </h2>
      <p className="mt-2 text-sm text-muted">
        Look up a key to see its state, bound PC, last check and resets, and to reset its PC or ban the key or the PC.{" "}
        <Link to={LICENCES_PATH} className="text-accent underline underline-offset-2">
          Open the licence page
        </Link>
      </p>
      <div className="mt-4">
        <LicenceLookup />
      </div>
    </Card>
  );
}
