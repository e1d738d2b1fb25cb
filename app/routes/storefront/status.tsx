// /status: each product's current status (Undetected, Updating, Detected or Down) and the latest
// updates. Staff whose role has `status.post` (admins) post updates here, and a post may set one
// product's status (decision 046); the form shows only to them, and the server refuses anyone else.
import { useFetcher } from "react-router";
import { Activity, AlertTriangle, Wrench } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import { describedBy, Field, FieldError, SelectField } from "~/components/ui/field";
import { inputClass } from "~/components/ui/input-class";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useViewer } from "~/components/viewer";
import { answer, answerInvalid, answerProblem, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { replicaDatabase } from "~/server/platform/db/client.server";
import { readSubmission } from "~/http/submission.server";
import { BRAND } from "~/lib/brand";
import { ok } from "~/lib/result";
import { can } from "~/lib/roles";
import { STATUS_TYPES, statusUpdateSchema } from "~/lib/schemas/status";
import { PRODUCT_STATUS_BADGE, PRODUCT_STATUS_MEANING, PRODUCT_STATUSES } from "~/lib/status";
import { getViewer } from "~/server/accounts/session.server";
import { LIMITS } from "~/server/catalogue/queries.server";
import { latestStatusUpdates, postStatusUpdate, productStatuses, statusAuthor } from "~/server/status/status-posts.server";
import { pageAndData, publicPageHeaders, purgePages } from "~/http/edge-cache.server";
import type { Route } from "./+types/status";
import { callerOf } from "~/http/caller.server";

export const headers = publicPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: `System Status | ${BRAND}` },
  { name: "description", content: `Live status of every ${BRAND} product and the latest update, maintenance and incident notes.` },
  { property: "og:title", content: `System Status | ${BRAND}` },
];

/** The catalogue's products (the status page lists each one); none when the catalogue cannot be read. */
function statusProducts(context: Route.LoaderArgs["context"]) {
  return app(context)
    .catalogue.listProducts({ first: LIMITS.listProducts, variantsFirst: 1, imagesFirst: 1 })
    .catch((error: unknown) => {
      console.error("Failed to load products for the status page:", error);
      return [];
    });
}

export async function loader({ context }: Route.LoaderArgs) {
  // A public page cached for a minute: the nearest replica may answer its reads (decision 068).
  const db = replicaDatabase(app(context).env.DB);
  const [updates, products] = await Promise.all([latestStatusUpdates(db), statusProducts(context)]);
  const statuses = await productStatuses(
    db,
    products.map((p) => p.id),
  );
  return {
    updates: updates.map((u) => ({ ...u, productTitle: products.find((p) => p.id === u.productId)?.title ?? null })),
    products: products.map((p) => ({ id: p.id, title: p.title, ...statuses.get(p.id)! })),
  };
}

const POST_FAILED = "Failed to post update";
const titles: ProblemTitles = { unauthenticated: POST_FAILED, forbidden: POST_FAILED, invalid: POST_FAILED };

export async function action({ request, context }: Route.ActionArgs) {
  const { db } = app(context);
  // Who is posting is settled before the form is read.
  const author = statusAuthor(await getViewer(db, callerOf(request)));
  if (!author.ok) return answerProblem(author.problem, { titles });
  const submission = await readSubmission(request, statusUpdateSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const posted = await postStatusUpdate(db, await statusProducts(context), author.value, submission.value);
  if (!posted.ok) return answerProblem(posted.problem, { titles });
  const { product } = posted.value;
  // The product page shows its product's status beside its badges, so it is purged with the status page.
  const pages = [...pageAndData("/status"), ...(product ? pageAndData(`/product/${product.handle}`) : [])];
  await purgePages(new URL(request.url).origin, pages);
  return answer(ok(), { success: { title: "Status update posted successfully!" } });
}

const TYPE_STYLE = {
  update: { icon: Activity, className: "text-sky-400" },
  maintenance: { icon: Wrench, className: "text-yellow-400" },
  incident: { icon: AlertTriangle, className: "text-red-400" },
};

type StatusProduct = Route.ComponentProps["loaderData"]["products"][number];

const capitalised = (word: string) => word[0]!.toUpperCase() + word.slice(1);

function PostUpdateForm({ products }: { products: StatusProduct[] }) {
  const fetcher = useFetcher<typeof action>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, statusUpdateSchema, { title: "Error" });
  return (
    <Card>
      <h2 className="text-lg font-bold">Post Status Update</h2>
      <fetcher.Form ref={formRef} method="post" className="mt-4 space-y-4" onSubmit={onSubmit}>
        <Field label="Title" name="title" maxLength={120} error={errors.title} />
        <div className="space-y-1.5">
          <label htmlFor="status-description" className="block text-sm font-medium">
            Description
          </label>
          <textarea
            id="status-description"
            name="description"
            rows={3}
            maxLength={2000}
            className={`${inputClass} h-auto py-2`}
            {...describedBy("status-description", { error: errors.description })}
          />
          <FieldError id="status-description" error={errors.description} />
        </div>
        <div className="grid gap-4 sm:grid-cols-3">
          <div className="space-y-1.5">
            <label htmlFor="status-type" className="block text-sm font-medium">
              Type
            </label>
            <select
              id="status-type"
              name="type"
              defaultValue="update"
              className={inputClass}
              {...describedBy("status-type", { error: errors.type })}
            >
              {STATUS_TYPES.map((type) => (
                <option key={type} value={type}>
                  {capitalised(type)}
                </option>
              ))}
            </select>
            <FieldError id="status-type" error={errors.type} />
          </div>
          <SelectField
            label="Product"
            name="product"
            options={[{ value: "", label: "No product" }, ...products.map((p) => ({ value: p.id, label: p.title }))]}
            error={errors.product}
          />
          <SelectField
            label="Set its status to"
            name="productStatus"
            options={[
              { value: "", label: "Keep as it is" },
              ...PRODUCT_STATUSES.map((status) => ({ value: status, label: PRODUCT_STATUS_BADGE[status].label })),
            ]}
            error={errors.productStatus}
          />
        </div>
        <p className="text-xs text-muted">
          The type only sets the post's icon. A product's badge here and on its page changes only when you set its status.
        </p>
        <Button type="submit" disabled={busy}>
          {busy ? "Posting..." : "Post Update"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}

function ProductStatusCard({ product }: { product: StatusProduct }) {
  const badge = PRODUCT_STATUS_BADGE[product.status];
  return (
    <li>
      <Card className="flex h-full flex-col gap-3">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h3 className="text-lg font-bold">{product.title}</h3>
          <Badge tone={badge.tone}>{badge.label}</Badge>
        </div>
        <p className="text-sm text-muted">{PRODUCT_STATUS_MEANING[product.status]}</p>
        <dl className="mt-auto flex flex-wrap gap-x-8 gap-y-2 text-sm">
          <div>
            <dt className="text-muted">Uptime</dt>
            <dd className="font-semibold">99.9%</dd>
          </div>
          <div>
            <dt className="text-muted">Last update</dt>
            <dd className="font-semibold">{product.since === null ? "Just now" : <LocalTime ms={product.since} format="datetime" />}</dd>
          </div>
        </dl>
      </Card>
    </li>
  );
}

export default function Status({ loaderData }: Route.ComponentProps) {
  const { updates, products } = loaderData;
  const { viewer } = useViewer();
  return (
    <div className="mx-auto max-w-4xl space-y-8 px-4 py-12">
      <h1 className="text-3xl font-black">System Status</h1>
      <section aria-labelledby="products-status">
        <h2 id="products-status" className="sr-only">
          Products
        </h2>
        {products.length === 0 ? (
          <EmptyState title="No products to show right now." />
        ) : (
          <ul className="grid gap-4 sm:grid-cols-2">
            {products.map((product) => (
              <ProductStatusCard key={product.id} product={product} />
            ))}
          </ul>
        )}
      </section>

      {can(viewer?.role, "status.post") ? <PostUpdateForm products={products} /> : null}

      <section aria-labelledby="recent">
        <h2 id="recent" className="text-xl font-bold">
          Recent Updates
        </h2>
        {updates.length === 0 ? (
          <p className="mt-4 text-muted">No updates yet.</p>
        ) : (
          <ol className="mt-4 space-y-4">
            {updates.map((update) => {
              const style = TYPE_STYLE[update.type];
              return (
                <li key={update.id}>
                  <Card className="flex gap-4">
                    <style.icon className={`mt-0.5 size-5 shrink-0 ${style.className}`} aria-label={update.type} />
                    <div className="min-w-0">
                      <h3 className="font-semibold">{update.title}</h3>
                      <p className="text-xs text-muted">
                        <LocalTime ms={update.createdAt} format="datetime" />
                      </p>
                      {update.productTitle ? (
                        <p className="mt-2 flex flex-wrap items-center gap-2 text-sm">
                          <span className="font-medium">{update.productTitle}</span>
                          {update.productStatus ? (
                            <>
                              <span className="text-muted">is now</span>
                              <Badge tone={PRODUCT_STATUS_BADGE[update.productStatus].tone}>
                                {PRODUCT_STATUS_BADGE[update.productStatus].label}
                              </Badge>
                            </>
                          ) : null}
                        </p>
                      ) : null}
                      <p className="mt-2 text-sm text-muted">{update.description}</p>
                    </div>
                  </Card>
                </li>
              );
            })}
          </ol>
        )}
      </section>
    </div>
  );
}
