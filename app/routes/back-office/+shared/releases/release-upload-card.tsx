// "Upload a release": the form (product, version, channel, notes, the entitlement it needs, the file), then
// the file sent in parts with a progress bar. A dropped connection is retried part by part; after
// a reload, choosing the same file again carries on from the parts already stored.
import { type FormEvent, useState } from "react";
import { useRevalidator } from "react-router";
import { Upload } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, SelectField } from "~/components/ui/field";
import { FileField } from "~/components/ui/file-field";
import { formatFileSize } from "~/lib/format";
import { formIssues } from "~/lib/form-schema";
import { MAX_RELEASE_BYTES, PART_BYTES, startReleaseSchema } from "~/lib/schemas/releases";
import { UploadError, uploadRelease } from "./upload-parts";

const UPLOAD_FAILED = "Upload failed";

export function ReleaseUploadCard({ products, entitlements }: { products: string[]; entitlements: { name: string; label: string }[] }) {
  const { toast } = useToast();
  const revalidator = useRevalidator();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const busy = progress !== null;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const file = data.get("file");
    const fields = Object.fromEntries([...data.entries()].filter((entry): entry is [string, string] => typeof entry[1] === "string"));
    // The schema checks the file's name and size as the server will.
    const issues = formIssues(startReleaseSchema, {
      ...fields,
      fileName: file instanceof File ? file.name : "",
      size: file instanceof File ? String(file.size) : "0",
    });
    setErrors(issues?.fields ?? {});
    if (issues || !(file instanceof File)) {
      toast({ title: UPLOAD_FAILED, description: issues?.problem.message ?? "Choose a file to upload", variant: "destructive" });
      return;
    }
    setProgress({ sent: 0, total: file.size });
    try {
      const { sha256 } = await uploadRelease(file, fields, (sent, total) => setProgress({ sent, total }));
      toast({ title: "Upload complete", description: `SHA-256 ${sha256}. Publish it when you are ready.` });
      form.reset();
      await revalidator.revalidate();
    } catch (error) {
      const answer = error instanceof UploadError ? error.answer : null;
      if (answer?.fieldErrors) setErrors(answer.fieldErrors);
      else if (answer?.problem.field) setErrors({ [answer.problem.field]: answer.problem.message });
      toast({ title: UPLOAD_FAILED, description: error instanceof Error ? error.message : "The upload stopped", variant: "destructive" });
    } finally {
      setProgress(null);
    }
  }

  const shown = errors;
  const percent = progress ? Math.floor((progress.sent / Math.max(1, progress.total)) * 100) : 0;
  return (
    <Card>
      <h2 className="flex items-center gap-2 text-lg font-bold">
        <Upload className="size-5 text-accent" aria-hidden /> Upload a release
      </h2>
      <form method="post" onSubmit={onSubmit} noValidate className="mt-4 grid gap-4 sm:grid-cols-2">
        <FileField
          label="File"
          name="file"
          required
          className="sm:col-span-2"
          hint={`Up to ${MAX_RELEASE_BYTES / 1024 ** 3} GB, sent in parts of ${PART_BYTES / 1024 ** 2} MB.`}
          error={shown.fileName ?? shown.size}
        />
        <SelectField
          label="Product"
          name="product"
          required
          defaultValue={products.length === 1 ? products[0] : ""}
          placeholder="Choose a product..."
          options={products.map((product) => ({ value: product, label: product }))}
          error={shown.product}
        />
        <Field label="Version" name="version" required maxLength={64} placeholder="1.4.0" error={shown.version} />
        <SelectField
          label="Channel"
          name="channel"
          defaultValue="stable"
          options={[
            { value: "stable", label: "Stable" },
            { value: "beta", label: "Beta (needs Beta Access)" },
          ]}
          error={shown.channel}
        />
        <SelectField
          label="Also needs"
          name="entitlement"
          options={[{ value: "", label: "Nothing more" }, ...entitlements.map((e) => ({ value: e.name, label: e.label }))]}
          error={shown.entitlement}
        />
        <div className="space-y-1.5 sm:col-span-2">
          <label htmlFor="release-notes" className="block text-sm font-medium text-zinc-200">
            Release notes (Markdown)
          </label>
          <textarea
            id="release-notes"
            name="notes"
            rows={4}
            maxLength={20000}
            className="w-full rounded-md border border-line bg-panel-2 p-3 text-sm"
          />
        </div>
        {progress ? (
          <div className="sm:col-span-2">
            <progress className="h-2 w-full accent-accent" max={progress.total} value={progress.sent} aria-label="Upload progress" />
            <p className="mt-1 text-xs text-muted" aria-live="polite">
              {percent}% · {formatFileSize(progress.sent)} of {formatFileSize(progress.total)}
            </p>
          </div>
        ) : null}
        <Button type="submit" disabled={busy} className="sm:w-fit">
          {busy ? "Uploading..." : "Upload"}
        </Button>
      </form>
    </Card>
  );
}
