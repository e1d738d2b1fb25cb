// /dashboard/downloads: the loader and other files. Subscription-only files need an active plan;
// admins can publish a new version.
import { Suspense } from "react";
import { Await, data, useFetcher } from "react-router";
import { AlertTriangle, Download, FileDown, Upload } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { FileField } from "~/components/ui/file-field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { answer, answerProblem } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { checkForm } from "~/lib/form-schema";
import { formatFileSize } from "~/lib/format";
import { ok } from "~/lib/result";
import { MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE, uploadSchema } from "~/lib/schemas/downloads";
import { activeFiles, downloadAccess, uploadFile } from "~/server/hub/downloads.server";
import { MAX_FORM_BYTES, readForm } from "~/http/request-body.server";
import type { Route } from "./+types/downloads";

export const meta: Route.MetaFunction = () => [{ title: `Downloads | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db } = app(context);
  const viewer = currentViewer(context);
  // The page shows what the download link will do: both follow the same rule.
  const access = await downloadAccess(db, viewer);
  return {
    // Streamed: the page shows "Loading downloads..." until the list is there.
    files: activeFiles(db, access),
    access,
  };
}

/** The upload form: the file and its few text fields. */
const UPLOAD_FORM_BYTES = MAX_UPLOAD_BYTES + MAX_FORM_BYTES;
const UPLOAD_FAILED = "Upload failed";
const titles = { invalid: UPLOAD_FAILED, "too-large": UPLOAD_FAILED };

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env } = app(context);
  const viewer = currentViewer(context);
  // Settled before a body of up to 90 MB is read.
  if (!viewer.isAdmin) throw data({ message: "You don't have permission to upload files" }, { status: 403 });
  // Answered here, with the limit in words, before readForm would refuse the body.
  if (Number(request.headers.get("Content-Length") ?? 0) > UPLOAD_FORM_BYTES) {
    return answerProblem({ code: "too-large", message: UPLOAD_TOO_LARGE, field: "file" }, { titles });
  }
  // The file is part of the form, so it is read whole (up to its own cap), not as text fields.
  const form = await readForm(request, UPLOAD_FORM_BYTES);
  const input = form.ok ? checkForm(uploadSchema, Object.fromEntries(form.value)) : form;
  if (!input.ok) return answerProblem(input.problem, { titles });
  return answer(ok(await uploadFile(db, env.DOWNLOADS, viewer, input.value)), {
    success: ({ fileName, version }) => ({ title: "Upload complete", description: `${fileName} ${version} is now available` }),
  });
}

type FileRow = Awaited<ReturnType<typeof activeFiles>>[number];

function UploadForm() {
  const fetcher = useFetcher<typeof action>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, uploadSchema, { title: UPLOAD_FAILED });
  return (
    <Card>
      <h2 className="flex items-center gap-2 font-bold">
        <Upload className="size-5 text-accent" aria-hidden /> Publish a new version
      </h2>
      <fetcher.Form ref={formRef} method="post" encType="multipart/form-data" onSubmit={onSubmit} className="mt-4 grid gap-4 sm:grid-cols-2">
        <FileField
          label="File"
          name="file"
          required
          className="sm:col-span-2"
          hint="Up to 90 MB. A file with the same name replaces the listed version."
          error={errors.file}
        />
        <Field label="Version" name="version" required maxLength={40} placeholder="1.0.1" error={errors.version} />
        <Field label="Description" name="description" maxLength={500} error={errors.description} />
        <label className="flex items-center gap-2 text-sm sm:col-span-2">
          <input type="checkbox" name="requiresSubscription" defaultChecked className="size-4 accent-accent" /> Requires an active subscription
        </label>
        <Button type="submit" disabled={busy} className="sm:w-fit">
          {busy ? "Uploading..." : "Upload"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}

function FileCard({ file }: { file: FileRow }) {
  const { toast } = useToast();
  return (
    <Card className="flex flex-col gap-4 sm:flex-row sm:items-center">
      <FileDown className="size-8 shrink-0 text-accent" aria-hidden />
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="font-semibold break-all">{file.fileName}</h2>
          <Badge tone="orange">v{file.version}</Badge>
        </div>
        {file.description ? <p className="mt-1 text-sm text-muted">{file.description}</p> : null}
        <p className="mt-1 text-xs text-muted">
          {formatFileSize(file.fileSize)} · <LocalTime ms={file.createdAt} />
          {file.requiresSubscription ? " · Requires Active Subscription" : ""}
        </p>
      </div>
      {file.allowed ? (
        <a href={`/dashboard/downloads/${file.id}`} download className={buttonClass("primary", "md")} onClick={() => toast({ title: "Download started successfully!" })}>
          <Download className="size-4" aria-hidden /> Download
        </a>
      ) : (
        <Button disabled title="Active subscription required to download this file">
          <Download className="size-4" aria-hidden /> Download
        </Button>
      )}
    </Card>
  );
}

export default function Downloads({ loaderData }: Route.ComponentProps) {
  const { files, access } = loaderData;
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-black">Downloads</h1>
      {access === "admin" ? (
        <p role="status" className="text-sm text-muted">
          As an admin you can download every file, with or without a subscription.
        </p>
      ) : null}
      {access === "none" ? (
        <div role="status" className="flex items-start gap-3 rounded-lg border border-yellow-500/40 bg-yellow-500/10 p-4 text-sm text-yellow-100">
          <AlertTriangle className="mt-0.5 size-5 shrink-0 text-yellow-400" aria-hidden />
          <div>
            <p className="font-semibold">No Active Subscription</p>
            <p className="mt-1 text-yellow-100/80">Files marked "Requires Active Subscription" need an active plan. Pick one under Subscriptions.</p>
          </div>
        </div>
      ) : null}
      {access === "admin" ? <UploadForm /> : null}
      <Suspense fallback={<p className="text-muted">Loading downloads...</p>}>
        <Await resolve={files} errorElement={<p role="alert" className="text-red-400">Failed to load downloads</p>}>
          {(list) =>
            list.length === 0 ? (
              <Card className="text-center">
                <p className="font-semibold">No Downloads Available</p>
                <p className="mt-1 text-sm text-muted">Check back after the next release.</p>
              </Card>
            ) : (
              <div className="space-y-3">
                {list.map((file) => (
                  <FileCard key={file.id} file={file} />
                ))}
              </div>
            )
          }
        </Await>
      </Suspense>
    </div>
  );
}
