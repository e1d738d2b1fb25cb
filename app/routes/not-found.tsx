// A path no page claims, in the storefront or inside the dashboard: a real 404, which the area's
// error boundary shows (inside the dashboard, with its sidebar).
import { notFound } from "~/http/refusals.server";

export function loader() {
  throw notFound();
}

// Never drawn (the loader always throws): a page, so that the area's error boundary answers.
export default function NotFound() {
  return null;
}
